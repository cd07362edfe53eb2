"""The syscall filter is an allow-list: what it lets through and what it refuses, in a probe."""

from __future__ import annotations

import ctypes
import os
import platform
import random
import socket

import pytest

from grader.sandbox import seccomp

pytestmark = pytest.mark.skipif(seccomp.supported() is not None, reason="no libseccomp")

REFUSED = {
    "socket": lambda: socket.socket(socket.AF_UNIX),
    "fork": os.fork,
    "exec": lambda: os.execv("/bin/true", ["true"]),
    "kill another process": lambda: os.kill(os.getppid(), 0),
    "F_SETOWN": lambda: __import__("fcntl").fcntl(0, 8, os.getppid()),
    "shmget": lambda: _libc().shmget(0, 4096, 0o1600),
    "msgget": lambda: _libc().msgget(0, 0o1600),
    "memfd_create": lambda: os.memfd_create("x"),
    "ioctl FIOSETOWN": lambda: __import__("fcntl").ioctl(0, 0x8901, b"\0\0\0\0"),
    "F_SETPIPE_SZ": lambda: __import__("fcntl").fcntl(os.pipe()[1], 1031, 2**20),
}
if platform.machine() == "x86_64":  # the kernel reads fcntl's command as 32-bit: 8 is F_SETOWN
    REFUSED["F_SETOWN with high bits"] = lambda: _libc().syscall(
        72, 0, ctypes.c_long(0x1_0000_0008), os.getppid()
    )


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _in_filtered_child(action) -> int:
    """Run action in a forked child under the filter; return 0 refused, 1 allowed, 2 broken."""
    pid = os.fork()
    if pid == 0:
        code = 2
        try:
            seccomp.install(seccomp.compile_bpf(seccomp.build(os.getpid())))
            result = action()
            code = 0 if result == -1 else 1  # libc calls answer -1 when refused
        except PermissionError:
            code = 0
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


@pytest.mark.parametrize("name", REFUSED)
def test_each_escape_is_refused(name):
    assert _in_filtered_child(REFUSED[name]) == 0


def test_ordinary_work_and_signals_to_itself_pass():
    def work():
        os.kill(os.getpid(), 0)
        __import__("fcntl").fcntl(0, 1)  # F_GETFD
        return os.getcwd()

    assert _in_filtered_child(work) == 1


def test_the_allow_list_names_no_escape_hatch():
    for name in ("execve", "ptrace", "socket", "shmget", "msgget", "memfd_create", "unshare"):
        assert name not in seccomp.ALLOWED


def test_the_template_gives_each_pid_the_filter_built_for_it():
    found = seccomp.template()
    assert found is not None and found.slots
    pids = (1, 2, 300, 65535, 65536, 2**21, 2**22 - 1, *random.sample(range(3, 2**22), 20))
    for pid in pids:
        assert seccomp.for_pid(found, pid) == seccomp.compile_bpf(seccomp.build(pid)), pid


@pytest.mark.parametrize("other", ["os.getpid() + 1", "os.getpid() - 1", "-os.getpid() - 1"])
def test_each_run_may_signal_itself_and_nothing_else(run, other):
    # Each run's filter carries its own pid (the zygote's template): the first and the next run
    # may signal themselves; a pid next to theirs (a worker before or after) is refused by
    # the filter (EPERM), not merely absent (ESRCH).
    code = f"import os\nos.kill(os.getpid(), 0)\ntry:\n    os.kill({other}, 0)\n"
    code += "except PermissionError:\n    y = x\nexcept ProcessLookupError:\n    y = None\n"
    for _ in range(2):
        outcome = run(code)
        assert outcome.status == "ok", outcome
        assert outcome.cases[0].returned["y"].tensor is not None, outcome
