"""Shut a freshly forked worker in: session, descriptors, environment, limits, uid, syscalls."""

from __future__ import annotations

import ctypes
import fcntl
import math
import os
import resource
import signal
from dataclasses import dataclass

from . import seccomp
from .isolation import WORKDIR_BYTES

RESULT_FD, PAYLOAD_FD = 3, 4
EXIT_SETUP, EXIT_NO_RESULT, EXIT_MEMORY = 70, 86, 87
NPROC = 16  # threads only: the syscall filter already refuses new processes
MIN_OPEN_FILES = 8
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4
CAPABILITY_V3 = 0x20080522
_LIBC = ctypes.CDLL(None, use_errno=True)
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Plan:
    """What the zygote found it can do for every worker it forks."""

    uid: int | None  # unprivileged uid and gid to run as; None when the zygote is not root
    seccomp: bool
    zygote: int  # the zygote's pid as the worker sees it (0 from inside a PID namespace)
    tmpfs: bool = False  # give each worker its own small tmpfs work dir (private mounts only)
    own: bool = False  # each worker enters its own mount, IPC namespaces and /proc
    job: str = "grade"  # the job kind the zygote serves (zygote.JOBS)
    program: seccomp.Template | None = None  # the filter compiled once, when its layout allows
    warm: bool = True  # a spare runs a made-up job before its run (the first; later, if asked)


def detach(workdir: str) -> None:
    """Leave the zygote's session, environment and directory behind (its descriptors are
    left by `adopt_fds`, first)."""
    os.setsid()
    seccomp.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.chdir(workdir)
    os.environ.clear()
    _oom_first()


def adopt_fds(result_fd: int, payload_fd: int) -> None:
    """Keep only the result and payload pipes, as fds 3 and 4, with /dev/null on 0, 1 and 2."""
    result = fcntl.fcntl(result_fd, fcntl.F_DUPFD, PAYLOAD_FD + 1)
    payload = fcntl.fcntl(payload_fd, fcntl.F_DUPFD, PAYLOAD_FD + 1)
    os.closerange(0, PAYLOAD_FD + 1)
    os.dup2(result, RESULT_FD, inheritable=False)
    os.dup2(payload, PAYLOAD_FD, inheritable=False)
    os.closerange(PAYLOAD_FD + 1, max(os.sysconf("SC_OPEN_MAX"), 1024))
    _null_stdio()


def _null_stdio() -> None:
    """Point fds 0, 1 and 2 (closed by the caller) at /dev/null."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd != null:
            os.dup2(null, fd)


def syscall_filter(plan: Plan) -> bytes | None:
    """Return the worker's syscall filter, compiled ahead of the run: the zygote's template
    with this worker's pid written in, else built anew (None when that layer is off)."""
    if not plan.seccomp:
        return None
    if plan.program is not None:
        return seccomp.for_pid(plan.program, os.getpid())
    return seccomp.compile_bpf(seccomp.build(os.getpid()))


def confine(plan: Plan, limits: dict, program: bytes | None = None) -> None:
    """Apply the limits, drop to the worker uid and end with the irreversible syscall filter."""
    _limit(limits, WORKDIR_BYTES if plan.tmpfs else 0)
    if plan.uid is not None:
        _drop(plan.uid)
        _lower(resource.RLIMIT_NPROC, NPROC)
    drop_capabilities()  # in a user namespace the worker keeps the zygote's uid, not its powers
    seccomp.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # changing uid cleared it
    if os.getppid() != plan.zygote:
        os._exit(EXIT_SETUP)
    seccomp.prctl(PR_SET_DUMPABLE, 0)
    if plan.seccomp:
        seccomp.install(program or syscall_filter(plan))


def _oom_first() -> None:
    """Ask the kernel to pick this worker first if memory runs out, where it may be asked.

    As root the write is allowed. Without root a non-dumpable process's /proc files belong to
    root, and the spare is not made dumpable to write it: while it was, another run's worker of
    the same uid (no user namespace, or no second uid mapped) could open its /proc/<pid>/mem
    and keep the handle, before this spare installs its syscall filter. So without root the
    worker keeps the zygote's score; the kernel still picks by size, and its limits still hold.
    One open and one write, without Python's text files: in a fresh fork each object they
    touch is a page copied (bench/README.md, issue 39, 2026-12-08).
    """
    try:
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    except OSError:
        return
    try:
        os.write(fd, b"1000")
    except OSError:
        pass
    finally:
        os.close(fd)


class _CapHeader(ctypes.Structure):
    """struct __user_cap_header_struct for capset(2)."""

    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


def drop_capabilities() -> None:
    """Clear every capability (effective, permitted, inheritable) of this process."""
    data = (ctypes.c_uint32 * 6)()
    if _LIBC.capset(ctypes.byref(_CapHeader(CAPABILITY_V3, 0)), data) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"capset: {os.strerror(err)}")


def _limit(limits: dict, workdir_bytes: int) -> None:
    """Set the CPU, address-space, file-size, open-file and core-dump limits.

    The memory budget covers the address space and the work dir's tmpfs together, so the
    tmpfs's size comes off the address space.
    """
    cpu = max(1, math.ceil(limits["cpu_seconds"]))
    _lower(resource.RLIMIT_CPU, cpu, cpu + 1)
    _lower(resource.RLIMIT_AS, vm_size() + max(0, limits["memory_bytes"] - workdir_bytes))
    _lower(resource.RLIMIT_FSIZE, limits["file_bytes"])
    _lower(resource.RLIMIT_NOFILE, max(limits["open_files"], MIN_OPEN_FILES))
    _lower(resource.RLIMIT_CORE, 0)


def _lower(which: int, soft: int, hard: int | None = None) -> None:
    """Lower a resource limit, never above the hard limit already in place."""
    _, current = resource.getrlimit(which)
    hard = soft if hard is None else hard
    if current != resource.RLIM_INFINITY:
        hard = min(hard, current)
    resource.setrlimit(which, (min(soft, hard), hard))


def vm_size() -> int:
    """Return this process's current address-space size in bytes (VmSize).

    Read from /proc/self/statm, whose first field is that size in pages: one short read, where
    /proc/self/status is a page of text for the kernel to write and Python to split.
    """
    fd = os.open("/proc/self/statm", os.O_RDONLY)
    try:
        fields = os.read(fd, 256).split()
    finally:
        os.close(fd)
    if not fields or not fields[0].isdigit():
        raise OSError("no size in /proc/self/statm")
    return int(fields[0]) * PAGE


def _drop(uid: int) -> None:
    """Become an unprivileged user with no supplementary groups."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
