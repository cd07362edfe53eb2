"""The pages a run writes and reads, learnt once in the zygote and brought into each spare at once.

A worker forked from the zygote shares every page with it until it writes one; the first write
to each page traps into the kernel, which copies it (copy-on-write). A run writes about two
thousand of the zygote's pages (reference counts, caches, the allocator's free lists), and
paying for them during the run makes it slower; a spare used to pay for them in advance by
running a made-up job (worker.warm_up), which costs three times as much CPU as the copies.
Instead the zygote learns once which pages that job writes: a probe forked from it runs the
job and reads, in /proc/self/pagemap, which of its pages are now its own (present and mapped
only there). Each spare then asks the kernel to copy exactly those pages at once
(MADV_POPULATE_WRITE, Linux 5.14): no made-up job, no trap per page.

A run also reads code: torch's kernels, the interpreter's. A fork does not copy the page-table
entries of a mapping it can fill again from its file (the libraries' text and read-only data),
so each worker would map every page of code it runs with a fault of its own, about three hundred
faults per run. The probe reports those it mapped too (present in its read-only file mappings),
and each spare maps them in at once (MADV_POPULATE_READ). Nothing is confined or refused
differently: which pages are brought in is a matter of speed only.
"""

from __future__ import annotations

import array
import ctypes
import os
import re
import resource
import signal
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

MADV_POPULATE_READ, MADV_POPULATE_WRITE = 22, 23
PAGE = os.sysconf("SC_PAGE_SIZE")
PRESENT, EXCLUSIVE = 1 << 63, 1 << 56  # /proc/<pid>/pagemap: page present, mapped only here
ENTRY = 8  # bytes per page in /proc/<pid>/pagemap, in the machine's byte order
TOP = ENTRY - 1 if sys.byteorder == "little" else 0  # where bits 56 to 63 sit in an entry
BOTH = (PRESENT | EXCLUSIVE) >> 56
OWN_BYTES = bytes(int(byte & BOTH == BOTH) for byte in range(256))
PRESENT_BYTES = bytes(int(byte & PRESENT >> 56 != 0) for byte in range(256))
RUN = re.compile(b"\x01+")
SCAN_PAGES = 4096  # pagemap entries read at once (32 KiB: below malloc's mmap threshold)
MAX_RANGES = 1 << 16  # a probe's answer is read only up to this many ranges
PROBE_SECONDS = 30.0
PR_SET_DUMPABLE = 4
Ranges = tuple[tuple[int, int], ...]  # (start address, length in bytes)
Files = tuple[IO[str], IO[bytes]]  # this process's /proc/self/maps and pagemap (own_files)


@dataclass(frozen=True)
class Learnt:
    """The pages a probe's job wrote (to be copied) and the file pages it mapped to read."""

    written: Ranges = ()
    read: Ranges = ()


def learn(job: Callable[[], object], userns: bool = False) -> Learnt:
    """Fork a probe that runs job() (our own made-up work, never learner code); return the
    pages it wrote and the file pages it read, or nothing (Learnt()) if it could not tell.

    Only while this process has no child but its PID namespace's init (`alone`): no worker of
    ours may be alive while a probe is (own_files); otherwise it learns nothing. `userns`:
    this process made a user namespace of its own (isolation.enter_userns).
    """
    if not alone():
        return Learnt()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        _probe(job, write, userns)
    os.close(write)
    try:
        answer = _read_all(read, 2 * MAX_RANGES * 3 * ENTRY)
    finally:
        os.close(read)
    ended = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if ended != 0 or len(answer) % (3 * ENTRY):
        return Learnt()
    flat = array.array("Q", answer)  # (start, length, advice) per range
    ranges = list(zip(flat[::3], flat[1::3], flat[2::3], strict=True))
    return Learnt(*(_of(ranges, advice) for advice in (MADV_POPULATE_WRITE, MADV_POPULATE_READ)))


def _of(ranges: list[tuple[int, int, int]], advice: int) -> Ranges:
    """Return the (start, length) of the ranges with this advice."""
    return tuple((start, length) for start, length, kind in ranges if kind == advice)


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
    """In the probe: run the job, write the ranges of the pages it wrote and read to out, exit
    (killed by SIGALRM if it has not within PROBE_SECONDS: the zygote waits for it)."""
    code = 1
    try:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_REAL, PROBE_SECONDS)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # dumpable for a moment: no core file
        files = own_files(userns)  # before the job, which takes native calls away
        before = mapped(files)  # copied at the fork (every spare has them) or mapped by now
        job()
        found = touched(files, before)
        advised = ((found.written, MADV_POPULATE_WRITE), (found.read, MADV_POPULATE_READ))
        flat = [n for ranges, advice in advised for pair in ranges for n in (*pair, advice)]
        answer = memoryview(array.array("Q", flat)).cast("B")
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


def own_files(userns: bool = False) -> Files:
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


def written(files: Files | None = None) -> Ranges:
    """Return the ranges of this process's writable pages that are present and its own only
    (read from `files`, from `own_files`, or opened now: as root, or while dumpable)."""
    return touched(files).written


def touched(files: Files | None = None, before: dict[int, Ranges] | None = None) -> Learnt:
    """Return this process's writable pages that are present and its own only, and the pages of
    its read-only file mappings (code, constants) that are present and were not `before` (from
    `mapped`); `files` as for `written`, closed after."""
    found: dict[bytes, list[tuple[int, int]]] = {OWN_BYTES: [], PRESENT_BYTES: []}
    maps, pagemap = files or own_files()
    with maps, pagemap:
        for start, table, runs in _scan((maps, pagemap)):
            if table is PRESENT_BYTES:
                runs = _since(runs, (before or {}).get(start, ()))
            found[table] += runs
    return Learnt(*(tuple(found[kind][:MAX_RANGES]) for kind in (OWN_BYTES, PRESENT_BYTES)))


def mapped(files: Files) -> dict[int, Ranges]:
    """Return the present pages of each read-only file mapping (by its start); `files` are
    left open."""
    return {start: tuple(runs) for start, table, runs in _scan(files) if table is PRESENT_BYTES}


def _scan(files: Files) -> Iterator[tuple[int, bytes, list[tuple[int, int]]]]:
    """Yield, for each mapping whose pages are reported (`_wanted`), its start, its table and
    the runs of its pages whose pagemap entries the table marks."""
    maps, pagemap = files
    maps.seek(0)
    for line in maps:
        span, perms, *rest = line.split()
        table = _wanted(perms, rest[3] if len(rest) > 3 else "")
        if table is not None:
            start, end = (int(x, 16) for x in span.split("-"))
            yield start, table, _marked(pagemap, start, end, table)


def _marked(pagemap: IO[bytes], start: int, end: int, table: bytes) -> list[tuple[int, int]]:
    """Return the runs of consecutive pages in [start, end) whose pagemap entries the table
    marks, read SCAN_PAGES entries at a time: the scan allocates little, so that it writes
    few pages of its own (they would be learnt as written).

    The bits sit in each 8-byte entry's most significant byte, so that byte of every entry is
    taken at once and mapped to 1 (marked) or 0, and the runs of 1s found by a regex.
    """
    runs: list[tuple[int, int]] = []
    for first in range(start, end, SCAN_PAGES * PAGE):
        pagemap.seek(first // PAGE * ENTRY)
        entries = pagemap.read(min(end - first, SCAN_PAGES * PAGE) // PAGE * ENTRY)
        for m in RUN.finditer(entries[TOP::ENTRY].translate(table)):
            at, length = first + m.start() * PAGE, (m.end() - m.start()) * PAGE
            if runs and sum(runs[-1]) == at:  # a run that goes on across two reads
                at, length = runs[-1][0], runs.pop()[1] + length
            runs.append((at, length))
    return runs


def _wanted(perms: str, name: str) -> bytes | None:
    """Return which pages of a mapping to report (a table for `_marked`), None for none: the
    writable ones written here, and a read-only file mapping's present ones (a fork does not
    copy their page-table entries: each process maps them anew)."""
    if perms.startswith("rw"):
        return OWN_BYTES
    if perms.startswith("r") and name.startswith("/"):
        return PRESENT_BYTES
    return None


def _since(now: list[tuple[int, int]], before: Ranges) -> list[tuple[int, int]]:
    """Return the parts of the runs `now` that lie outside every run `before` (both lists of
    disjoint runs in address order, so one sweep does)."""
    fresh, i = [], 0
    for start, length in now:
        at, end = start, start + length
        while i < len(before) and sum(before[i]) <= at:
            i += 1
        j = i
        while at < end and j < len(before) and before[j][0] < end:
            if before[j][0] > at:
                fresh.append((at, before[j][0] - at))
            at, j = max(at, sum(before[j])), j + 1
        if at < end:
            fresh.append((at, end - at))
    return fresh


def copy_in(learnt: Learnt) -> int:
    """Copy the written pages into this process now and map the read ones (each range in one
    call); return the bytes copied: 0 where the kernel cannot (then the run pays for them as it
    writes them, and for the others as it reads them)."""
    _advise(learnt.read, MADV_POPULATE_READ)
    return _advise(learnt.written, MADV_POPULATE_WRITE)


def _advise(ranges: Ranges, advice: int) -> int:
    """Give each range this advice; return the bytes of the ranges that took it."""
    return sum(length for start, length in ranges if _madvise(start, length, advice) == 0)


_LIBC = ctypes.CDLL(None, use_errno=True)
_madvise, _prctl = _LIBC.madvise, _LIBC.prctl
_madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
_prctl.argtypes = (ctypes.c_int, *[ctypes.c_ulong] * 4)
