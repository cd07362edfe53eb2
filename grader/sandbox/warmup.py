"""Zygote start-up: warm torch up and probe which per-worker layers this machine provides."""

from __future__ import annotations

import ctypes
import gc
import os
import socket
import threading

import torch
import torch.nn.functional as F

from . import confine, seccomp, worker

UID_BASE = 2_000_000_000  # workers run as UID_BASE + the zygote's pid (unique while it lives)
NO_UID = "not running as root, so workers keep the server's uid"
HUGE_PAGE = 2 * 1024**2
MADV_HUGEPAGE, MADV_COLLAPSE = 14, 25
PROBE_FAILURES = {
    1: "the filter could not be installed",
    2: "sockets were not refused",
    3: "new threads were not refused",
    4: "fork was not refused",
}


def prepare() -> tuple[confine.Plan, dict[str, str]]:
    """Warm torch up, probe the per-worker layers and return the plan every worker follows."""
    torch.set_num_threads(1)
    warm()
    uid = UID_BASE + os.getpid() if os.geteuid() == 0 else None
    layers = {"process": "on", "environment": "on", "workdir": "on", "rlimits": "on"}
    layers["uid"] = "on" if uid is not None else f"unavailable: {NO_UID}"
    layers["seccomp"] = probe_seccomp()
    layers["threads"] = _threads(layers["seccomp"])
    program = seccomp.template() if layers["seccomp"] == "on" else None
    gc.freeze()
    return confine.Plan(uid, layers["seccomp"] == "on", os.getpid(), program=program), layers


def warm() -> None:
    """Run the usual operations once so that workers inherit torch's lazy state ready-made."""
    for dtype in (torch.float32, torch.float64):
        x, w = torch.randn(8, 5, dtype=dtype), torch.randn(5, 3, dtype=dtype)
        y = (x @ w).tanh()
        y.exp().log().max(1, keepdim=True).values.sum(0, keepdim=True)
        (y**2).mean() + y.var(0).sum() + (y.T @ y).sum() + y[range(8), [0] * 8].mean()
        torch.zeros_like(y).index_add_(0, torch.arange(8), y)
        F.cross_entropy(y, torch.zeros(8, dtype=torch.long)) + F.one_hot(torch.arange(3), 3).sum()
        torch.allclose(y, y), str(y)
    worker.rehearse()


def huge_pages() -> int:
    """Back the zygote's private memory with huge pages where the kernel can; return the bytes.

    Every run forks the zygote, and the kernel copies a page-table entry for each of its
    private pages at the fork and drops it at the worker's exit: with torch imported, about
    37,000 pages of 4 KiB, several milliseconds of system CPU per run. The same memory in pages
    of 2 MiB is a few hundred entries. A worker's write still copies only the 4 KiB it touches.
    The zygote calls it once, after its first run and before the next spare is forked: no
    worker shares its pages then (shared pages cannot be collapsed), and its start-up, which
    the first submission waits for, does not pay for it. Nothing changes where the kernel has
    no transparent huge pages (or no MADV_COLLAPSE, Linux 6.1): the calls fail and are ignored.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    collapsed = 0
    for start, end in _private_ranges():
        advised = libc.madvise(start, end - start, MADV_HUGEPAGE) == 0
        if advised and libc.madvise(start, end - start, MADV_COLLAPSE) == 0:
            collapsed += end - start
    return collapsed


def _private_ranges() -> list[tuple[int, int]]:
    """Return the whole huge pages inside this process's writable anonymous mappings."""
    ranges = []
    with open("/proc/self/maps") as f:
        for line in f:
            fields = line.split()
            name = fields[5] if len(fields) > 5 else ""
            if not fields[1].startswith("rw") or name not in ("", "[heap]"):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            start = -(-start // HUGE_PAGE) * HUGE_PAGE
            end = end // HUGE_PAGE * HUGE_PAGE
            if end > start:
                ranges.append((start, end))
    return ranges


def _threads(seccomp_layer: str) -> str:
    """Report the threads layer: torch on one thread, and new threads refused by the filter."""
    threads = torch.get_num_threads()
    if threads != 1:
        return f"unavailable: torch uses {threads} threads"
    if seccomp_layer != "on":
        return "unavailable: new threads are refused by the syscall filter, which is off"
    return "on"


def probe_seccomp() -> str:
    """Fork a probe that installs the filter and checks what it refuses; report the layer."""
    why = seccomp.supported()
    if why:
        return f"unavailable: {why}"
    pid = os.fork()
    if pid == 0:
        os._exit(_probe())
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return "on" if code == 0 else f"unavailable: {PROBE_FAILURES.get(code, f'probe ended {code}')}"


def _probe() -> int:
    """In the probe: install the filter, then check that sockets, threads and fork are refused."""
    try:
        seccomp.install(seccomp.compile_bpf(seccomp.build(os.getpid())))
    except (OSError, RuntimeError):
        return 1
    if _works(lambda: socket.socket(socket.AF_UNIX).close()):
        return 2
    if _works(_thread_round_trip):
        return 3
    return 4 if _works(_fork_and_reap) else 0


def _works(action) -> bool:
    """Return whether action ran without an OSError or RuntimeError."""
    try:
        action()
    except (OSError, RuntimeError):
        return False
    return True


def _thread_round_trip() -> None:
    """Start a thread and wait for it."""
    thread = threading.Thread(target=lambda: None)
    thread.start()
    thread.join()


def _fork_and_reap() -> None:
    """Fork a child that exits at once, and reap it."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
