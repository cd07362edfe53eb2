"""The pages a run writes, learnt once in the zygote and copied into each spare in one go.

A worker forked from the zygote shares every page with it until it writes one; the first write
to each page traps into the kernel, which copies it (copy-on-write). A run writes about two
thousand of the zygote's pages (reference counts, caches, the allocator's free lists), and
paying for them during the run makes it slower; a spare used to pay for them in advance by
running a made-up job (worker.warm_up), which costs three times as much CPU as the copies.
Instead the zygote learns once which pages that job writes: a probe forked from it runs the
job and reads, in /proc/self/pagemap, which of its pages are now its own (present and mapped
only there). Each spare then asks the kernel to copy exactly those pages at once
(MADV_POPULATE_WRITE, Linux 5.14): no made-up job, no trap per page. Nothing is confined or
refused differently: which pages are copied is a matter of speed only.
"""

from __future__ import annotations

import array
import ctypes
import os
import re
import resource
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO

MADV_POPULATE_WRITE = 23
PAGE = os.sysconf("SC_PAGE_SIZE")
PRESENT, EXCLUSIVE = 1 << 63, 1 << 56  # /proc/<pid>/pagemap: page present, mapped only here
ENTRY = 8  # bytes per page in /proc/<pid>/pagemap, in the machine's byte order
TOP = ENTRY - 1 if sys.byteorder == "little" else 0  # where bits 56 to 63 sit in an entry
BOTH = (PRESENT | EXCLUSIVE) >> 56
OWN_BYTES = bytes(int(byte & BOTH == BOTH) for byte in range(256))
RUN = re.compile(b"\x01+")
MAX_RANGES = 1 << 16  # a probe's answer is read only up to this many ranges
PROBE_SECONDS = 30.0
PR_SET_DUMPABLE = 4
Ranges = tuple[tuple[int, int], ...]  # (start address, length in bytes)


def learn(job: Callable[[], object], userns: bool = False) -> Ranges:
    """Fork a probe that runs job() (our own made-up work, never learner code); return the
    ranges of pages it wrote, or () if it could not tell.

    Only while this process has no child but its PID namespace's init (`alone`): no worker of
    ours may be alive while a probe is (own_files); otherwise it learns nothing. `userns`:
    this process made a user namespace of its own (isolation.enter_userns).
    """
    if not alone():
        return ()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        _probe(job, write, userns)
    os.close(write)
    try:
        answer = _read_all(read, MAX_RANGES * 2 * ENTRY)
    finally:
        os.close(read)
    ended = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if ended != 0 or len(answer) % (2 * ENTRY):
        return ()
    flat = array.array("Q", answer)
    return tuple(zip(flat[::2], flat[1::2], strict=True))


def alone() -> bool:
    """Return whether this process has no child, alive or unreaped, but a PID namespace's init
    (pid 1 there: isolation.py). False when the kernel cannot say (CONFIG_PROC_CHILDREN)."""
    try:
        tasks = Path("/proc/self/task").iterdir()
        children = [pid for task in tasks for pid in (task / "children").read_text().split()]
        return all(_is_init(pid) for pid in children)
    except OSError:
        return False


def _is_init(pid: str) -> bool:
    """Return whether this child is pid 1 of its PID namespace (raises OSError if it is gone)."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return any(line.split()[-1] == "1" for line in status if line.startswith("NSpid:"))


def _probe(job: Callable[[], object], out: int, userns: bool) -> None:
    """In the probe: run the job, write the ranges of the pages it wrote to out, exit (killed
    by SIGALRM if it has not within PROBE_SECONDS: the zygote waits for it)."""
    code = 1
    try:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_REAL, PROBE_SECONDS)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # dumpable for a moment: no core file
        files = own_files(userns)  # before the job, which takes native calls away
        job()
        answer = array.array("Q", [n for pair in written(files) for n in pair])
        answer = memoryview(answer).cast("B")
        while answer := answer[os.write(out, answer) :]:
            pass
        code = 0
    finally:
        os._exit(code)


def _read_all(fd: int, limit: int) -> bytes:
    """Return what fd holds until its end (at most limit bytes)."""
    chunks, size = [], 0
    while size < limit and (chunk := os.read(fd, min(1 << 20, limit - size))):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def own_files(userns: bool = False) -> tuple[IO[str], IO[bytes]]:
    """Open this process's /proc/self/maps and pagemap, to be read later (`written`).

    Without root the zygote and its children are not dumpable, so their /proc files belong to
    root. A probe in the user namespace its zygote made (`userns`) becomes dumpable for the two
    opens only, before its job runs: no process of that namespace runs learner code then (the
    zygote learns only with no worker alive, `alone`), and the kernel lets no process of another
    user namespace open our memory, whatever its uid. Without one (no user namespace could be
    made: workers then share the grader's uid and namespace) it raises, and the probe learns
    nothing. The reasoning, checked: docs/sandbox.md.
    """
    try:
        return open("/proc/self/maps"), open("/proc/self/pagemap", "rb")
    except PermissionError:
        if not userns:
            raise
        _prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        try:
            return open("/proc/self/maps"), open("/proc/self/pagemap", "rb")
        finally:
            _prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def written(files: tuple[IO[str], IO[bytes]] | None = None) -> list[tuple[int, int]]:
    """Return the ranges of this process's writable pages that are present and its own only
    (read from `files`, from `own_files`, or opened now: as root, or while dumpable)."""
    found: list[tuple[int, int]] = []
    maps, pagemap = files or own_files()
    with maps, pagemap:
        for line in maps:
            span, perms = line.split()[:2]
            if perms.startswith("rw"):
                start, end = (int(x, 16) for x in span.split("-"))
                pagemap.seek(start // PAGE * ENTRY)
                found += _runs(start, pagemap.read((end - start) // PAGE * ENTRY))
    return found[:MAX_RANGES]


def _runs(start: int, entries: bytes) -> list[tuple[int, int]]:
    """Return the runs of consecutive pages, from start, whose entries are present and own.

    Both bits sit in each 8-byte entry's most significant byte, so that byte of every entry is
    taken at once and mapped to 1 (both set) or 0, and the runs of 1s found by a regex.
    """
    flags = entries[TOP::ENTRY].translate(OWN_BYTES)
    return [(start + m.start() * PAGE, (m.end() - m.start()) * PAGE) for m in RUN.finditer(flags)]


def copy_in(ranges: Ranges) -> int:
    """Copy these pages into this process now (each range in one call); return the bytes
    copied: 0 where the kernel cannot (then the run pays for them as it writes them)."""
    copied = 0
    for start, length in ranges:
        if _madvise(start, length, MADV_POPULATE_WRITE) == 0:
            copied += length
    return copied


_LIBC = ctypes.CDLL(None, use_errno=True)
_madvise, _prctl = _LIBC.madvise, _LIBC.prctl
_madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
_prctl.argtypes = (ctypes.c_int, *[ctypes.c_ulong] * 4)
