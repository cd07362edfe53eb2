"""A seccomp BPF syscall filter for the worker: no exec, no new processes, no sockets, no ptrace.

Denied calls fail with EPERM, so learner code sees an ordinary PermissionError; clone is allowed
only for threads (CLONE_THREAD), clone3 reports ENOSYS so libc falls back to clone, and signals
may only go to the worker itself. A syscall from another architecture kills the process.
"""

from __future__ import annotations

import ctypes
import errno
import platform

ARCHES = {"x86_64": (0, 0xC000003E), "aarch64": (1, 0xC00000B7)}

# Syscall numbers as (x86_64, aarch64); None where the architecture has no such call.
DENIED: dict[str, tuple[int | None, int | None]] = {
    "execve": (59, 221),
    "execveat": (322, 281),
    "fork": (57, None),
    "vfork": (58, None),
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "kcmp": (312, 272),
    "pidfd_open": (434, 434),
    "pidfd_send_signal": (424, 424),
    "pidfd_getfd": (438, 438),
    "tkill": (200, 130),
    "socket": (41, 198),
    "socketpair": (53, 199),
    "connect": (42, 203),
    "bind": (49, 200),
    "listen": (50, 201),
    "accept": (43, 202),
    "accept4": (288, 242),
    "sendto": (44, 206),
    "recvfrom": (45, 207),
    "sendmsg": (46, 211),
    "recvmsg": (47, 212),
    "sendmmsg": (307, 269),
    "recvmmsg": (299, 243),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "unshare": (272, 97),
    "setns": (308, 268),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "name_to_handle_at": (303, 264),
    "open_by_handle_at": (304, 265),
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    "process_madvise": (440, 440),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "personality": (135, 92),
    "iopl": (172, None),
    "ioperm": (173, None),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "reboot": (169, 142),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "acct": (163, 89),
    "quotactl": (179, 60),
    "syslog": (103, 116),
    "vhangup": (153, 58),
    "settimeofday": (164, 170),
    "clock_settime": (227, 112),
    "clock_adjtime": (305, 266),
    "adjtimex": (159, 171),
    "sethostname": (170, 161),
    "setdomainname": (171, 162),
}
# Calls whose first argument is a target pid: allowed only towards the worker itself.
SIGNALS = {
    "kill": (62, 129),
    "tgkill": (234, 131),
    "rt_sigqueueinfo": (129, 138),
    "rt_tgsigqueueinfo": (297, 240),
}
CLONE, CLONE3 = (56, 220), (435, 435)
CLONE_THREAD = 0x00010000
X32_SYSCALL_BIT = 0x40000000

RET_KILL_PROCESS, RET_ERRNO, RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
LD_W_ABS, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
OFF_NR, OFF_ARCH, OFF_ARG0 = 0, 4, 16
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2

MACHINE = platform.machine()
_LIBC = ctypes.CDLL(None, use_errno=True)


class SockFilter(ctypes.Structure):
    """struct sock_filter: one classic BPF instruction."""

    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                ("k", ctypes.c_uint)]  # fmt: skip


class SockFprog(ctypes.Structure):
    """struct sock_fprog: a BPF program."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def supported() -> str | None:
    """Return why the filter cannot be built on this machine, or None when it can."""
    return None if MACHINE in ARCHES else f"no syscall table for {MACHINE}"


def program(pid: int, machine: str = MACHINE) -> list[tuple[int, int, int, int]]:
    """Return the filter for the worker process pid as (code, jt, jf, k) instructions."""
    col, audit_arch = ARCHES[machine]
    ops: list = [(LD_W_ABS, 0, 0, OFF_ARCH), (JEQ, 1, 0, audit_arch)]
    ops += [(RET, 0, 0, RET_KILL_PROCESS), (LD_W_ABS, 0, 0, OFF_NR)]
    if machine == "x86_64":
        ops.append((JGE, "deny", 0, X32_SYSCALL_BIT))
    ops += [(JEQ, "deny", 0, nrs[col]) for nrs in DENIED.values() if nrs[col] is not None]
    ops += [(JEQ, "clone", 0, CLONE[col]), (JEQ, "nosys", 0, CLONE3[col])]
    ops += [(JEQ, "signal", 0, nrs[col]) for nrs in SIGNALS.values()]
    ops += [(RET, 0, 0, RET_ALLOW)]  # BPF only jumps forward: the targets come last
    ops += ["clone", (LD_W_ABS, 0, 0, OFF_ARG0), (JSET, "allow", "deny", CLONE_THREAD)]
    ops += ["signal", (LD_W_ABS, 0, 0, OFF_ARG0), (JEQ, "allow", 0, pid), (JEQ, "allow", 0, 0)]
    ops += [(JEQ, "allow", "deny", -pid & 0xFFFFFFFF)]
    ops += ["allow", (RET, 0, 0, RET_ALLOW), "deny", (RET, 0, 0, RET_ERRNO | errno.EPERM)]
    ops += ["nosys", (RET, 0, 0, RET_ERRNO | errno.ENOSYS)]
    return _resolve(ops)


def _resolve(ops: list) -> list[tuple[int, int, int, int]]:
    """Replace label names in jumps by relative offsets and drop the labels."""
    labels, code = {}, []
    for op in ops:
        if isinstance(op, str):
            labels[op] = len(code)
        else:
            code.append(op)
    out = []
    for i, (op, jt, jf, k) in enumerate(code):
        jt, jf = (labels[j] - i - 1 if isinstance(j, str) else j for j in (jt, jf))
        if not (0 <= jt <= 255 and 0 <= jf <= 255):
            raise ValueError(f"BPF jump out of range at instruction {i}")
        out.append((op, jt, jf, k))
    return out


def install(pid: int) -> None:
    """Set no_new_privs and load the filter into this process (irreversible)."""
    ops = program(pid)
    filters = (SockFilter * len(ops))(*ops)
    prog = SockFprog(len(ops), filters)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog))


def prctl(option: int, arg2: int, arg3: int = 0) -> None:
    """Call prctl(2), raising OSError on failure."""
    args = (ctypes.c_int(option), ctypes.c_ulong(arg2), ctypes.c_ulong(arg3))
    if _LIBC.prctl(*args, ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {errno.errorcode.get(err, err)}")
