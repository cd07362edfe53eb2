"""The worker's syscall filter: an allow-list built with libseccomp (through pyseccomp).

Every call not listed fails with EPERM, so learner code sees an ordinary PermissionError: no
exec, no new processes, no sockets, no ptrace, no SysV IPC, no memfd, no namespaces or mounts.
No new threads either: clone is refused whatever its flags (a new thread would start with a
fresh thread-local grad mode, which is on), and clone3 reports ENOSYS so that libc falls back to
clone and is refused there. An honest run is single-threaded: torch runs with one intra-op thread
(warmup.py) and starts no pool at run time. Some listed calls are allowed only with safe
arguments: signals only to the worker itself, and only the fcntl
commands and ioctls that cannot make the kernel signal another process (no F_SETOWN, FIOSETOWN).
libseccomp checks the architecture, so a syscall from another ABI is refused too.
The list holds every call that tracing warm workers (strace -f) through the sandbox and hostile
suites showed, plus the standard library's ordinary file, time and thread calls.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from dataclasses import dataclass

try:
    import pyseccomp
except (ImportError, RuntimeError) as e:  # RuntimeError: libseccomp.so.2 is not installed
    pyseccomp, MISSING = None, f"libseccomp is not available ({e})"
else:
    MISSING = None


def _calls(*groups: str) -> tuple[str, ...]:
    """Return the call names in groups of space-separated names."""
    return tuple(" ".join(groups).split())


ALLOWED = _calls(
    # memory
    "brk mmap munmap mremap mprotect madvise mincore msync mlock munlock get_mempolicy",
    # files and descriptors (only the tmpfs work dir is writable)
    "read write readv writev pread64 pwrite64 preadv pwritev preadv2 pwritev2 lseek close "
    "close_range open openat openat2 creat stat fstat lstat newfstatat statx statfs fstatfs "
    "access faccessat faccessat2 getdents64 getcwd chdir fchdir mkdir mkdirat rmdir unlink "
    "unlinkat rename renameat renameat2 link linkat symlink symlinkat readlink readlinkat "
    "chmod fchmod fchmodat umask truncate ftruncate fallocate fsync fdatasync flock utimensat "
    "dup dup2 dup3 pipe pipe2 sendfile copy_file_range splice tee fadvise64 "
    "getxattr lgetxattr fgetxattr listxattr flistxattr llistxattr",
    # waiting and time
    "poll ppoll select pselect6 epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait "
    "epoll_pwait2 eventfd eventfd2 nanosleep clock_nanosleep clock_gettime clock_getres "
    "gettimeofday time times getitimer setitimer alarm pause timer_create timer_settime "
    "timer_gettime timer_delete timerfd_create timerfd_settime timerfd_gettime",
    # threads and signals (to itself; see the conditional rules)
    "futex futex_waitv set_robust_list get_robust_list set_tid_address rseq gettid "
    "sched_yield sched_getaffinity sched_setaffinity sched_getparam sched_getscheduler "
    "sched_get_priority_max sched_get_priority_min membarrier exit exit_group "
    "rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending rt_sigsuspend rt_sigtimedwait "
    "sigaltstack restart_syscall",
    # about itself
    "getpid getppid getuid geteuid getgid getegid getresuid getresgid getgroups getpgrp "
    "getpgid getsid getpriority getrlimit prlimit64 getrusage sysinfo uname getcpu getrandom "
    "capget arch_prctl prctl",
)
SIGNALS = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")
# The fcntl commands and ioctls allowed, each by exact value: the kernel reads these arguments
# as 32-bit, so a range check on the 64-bit register could be passed with high bits set. Left
# out: F_SETOWN, F_SETSIG, F_SETOWN_EX, F_SETLEASE and FIOSETOWN/SIOCSPGRP/FIOASYNC, which make
# the kernel signal another process, and F_SETPIPE_SZ (1031): a grown pipe buffer is kernel
# memory that RLIMIT_AS does not count.
FCNTL_SAFE = (0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 16, 36, 37, 38, 1025, 1030, 1032, 1033, 1034)
IOCTL_SAFE = (0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451)  # TCGETS TIOCGWINSZ FIONREAD
# FIONBIO FIONCLEX FIOCLEX
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
_LIBC = ctypes.CDLL(None, use_errno=True)


def supported() -> str | None:
    """Return why the filter cannot be built on this machine, or None when it can."""
    return MISSING


def build(pid: int):
    """Return the filter (not yet loaded) for the worker process pid."""
    ps = pyseccomp
    rules = ps.SyscallFilter(ps.ERRNO(errno.EPERM))
    for name in ALLOWED:
        _allow(rules, name)
    rules.add_rule(ps.ERRNO(errno.ENOSYS), "clone3")  # libc falls back to clone: refused
    for name in SIGNALS:
        for target in (pid, 0, -pid & 0xFFFFFFFF, -pid & 0xFFFFFFFFFFFFFFFF):
            rules.add_rule(ps.ALLOW, name, ps.Arg(0, ps.EQ, target))
    for command in FCNTL_SAFE:
        rules.add_rule(ps.ALLOW, "fcntl", ps.Arg(1, ps.EQ, command))
    for request in IOCTL_SAFE:
        rules.add_rule(ps.ALLOW, "ioctl", ps.Arg(1, ps.EQ, request))
    return rules


# Stand-in pids (below the kernel's PID_MAX_LIMIT, above every other constant of the filter)
# that show where a worker's pid sits in the compiled program; the third checks the result.
STAND_INS = (3_000_017, 3_100_019, 2_718_281)
_INSN = struct.Struct("=HBBI")  # struct sock_filter: code, jt, jf, k (the machine's byte order)


@dataclass(frozen=True)
class Template:
    """The filter compiled once for a stand-in pid, and where that pid sits in the program:
    the byte offset of each instruction's constant that is the pid, or its 32-bit negation."""

    program: bytes
    slots: tuple[tuple[int, bool], ...]  # (offset of the instruction, negated)


def template() -> Template | None:
    """Compile the filter once (a zygote does, before it forks any worker) so that a worker
    only writes its own pid into the program (`for_pid`) instead of building it: building
    costs milliseconds of CPU per run. None when the program's layout depends on the pid."""
    first, second, check = STAND_INS
    a, b = (compile_bpf(build(pid)) for pid in (first, second))
    if len(a) != len(b) or len(a) % _INSN.size:
        return None
    slots = []
    for offset in range(0, len(a), _INSN.size):
        *jump_a, k_a = _INSN.unpack_from(a, offset)
        *jump_b, k_b = _INSN.unpack_from(b, offset)
        if jump_a != jump_b:
            return None
        if k_a == k_b:
            continue
        if (k_a, k_b) not in ((first, second), (_negated(first), _negated(second))):
            return None
        slots.append((offset, k_a != first))
    found = Template(a, tuple(slots))
    return found if for_pid(found, check) == compile_bpf(build(check)) else None


def for_pid(found: Template, pid: int) -> bytes:
    """Return the template's program for the process pid (as `compile_bpf(build(pid))`)."""
    program = bytearray(found.program)
    for offset, negated in found.slots:
        code, jt, jf, _ = _INSN.unpack_from(program, offset)
        _INSN.pack_into(program, offset, code, jt, jf, _negated(pid) if negated else pid)
    return bytes(program)


def _negated(pid: int) -> int:
    """Return -pid as the low 32 bits the program compares (kill(-pid) names a group)."""
    return -pid & 0xFFFFFFFF


def _allow(rules, name: str) -> None:
    """Allow one call by name, skipping names this architecture does not have."""
    if pyseccomp.resolve_syscall(pyseccomp.system_arch(), name) >= 0:
        rules.add_rule(pyseccomp.ALLOW, name)


class _SockFprog(ctypes.Structure):
    """struct sock_fprog: a compiled BPF program (8 bytes per instruction)."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def compile_bpf(rules) -> bytes:
    """Return the filter compiled to BPF by libseccomp, so that loading it later is cheap."""
    read, write = os.pipe()
    try:
        with os.fdopen(write, "wb", closefd=False) as sink:
            rules.export_bpf(sink)
        os.close(write)
        write = -1
        chunks = []
        while chunk := os.read(read, 65536):
            chunks.append(chunk)
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)
    return b"".join(chunks)


def install(program: bytes) -> None:
    """Load a program from `compile_bpf` into this process (irreversible; no_new_privs)."""
    prog = _SockFprog(len(program) // 8, program)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog))


def prctl(option: int, arg2: int, arg3: int = 0) -> None:
    """Call prctl(2), raising OSError on failure."""
    args = (ctypes.c_int(option), ctypes.c_ulong(arg2), ctypes.c_ulong(arg3))
    if _LIBC.prctl(*args, ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {errno.errorcode.get(err, err)}")
