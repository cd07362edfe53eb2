"""The pages a run writes (pages.py): learnt by a probe, copied into each spare at once, and
nothing else about the spare changes (a copied page holds what the zygote's held)."""

from __future__ import annotations

import os
import signal

from grader.sandbox import pages

SIZE = 64 * pages.PAGE


def _address(buffer: bytearray) -> int:
    """Return the address of a bytearray's first byte (its buffer, not the object)."""
    import ctypes

    return ctypes.addressof((ctypes.c_char * len(buffer)).from_buffer(buffer))


def _inside(ranges, start: int, end: int) -> int:
    """Return how many pages of [start, end) the ranges hold."""
    first, last = -(-start // pages.PAGE) * pages.PAGE, end // pages.PAGE * pages.PAGE
    held = set()
    for begin, length in ranges:
        held.update(range(max(begin, first), min(begin + length, last), pages.PAGE))
    return len(held)


def _in_child(check) -> int:
    """Fork, run check() in the child and return its exit code (0 when it held)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = 0 if check() else 3
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def test_a_probe_reports_the_pages_its_job_wrote_and_not_those_it_only_read():
    written, read = bytearray(b"z" * SIZE), bytearray(b"r" * SIZE)
    start_w, start_r = _address(written), _address(read)

    def job() -> None:
        written[:: pages.PAGE] = b"w" * len(written[:: pages.PAGE])
        assert read.count(b"r") == SIZE

    ranges = pages.learn(job)
    assert _inside(ranges, start_w, start_w + SIZE) >= 62  # the first and last may be cut
    assert _inside(ranges, start_r, start_r + SIZE) == 0
    assert written == b"z" * SIZE  # the probe wrote its own copy


def test_a_probe_whose_job_fails_reports_nothing():
    def job() -> None:
        raise RuntimeError("made-up failure")

    assert pages.learn(job) == ()


def test_copied_pages_become_the_spares_own_and_keep_the_zygotes_bytes():
    shared = bytearray(os.urandom(SIZE))
    kept, start = bytes(shared), _address(shared)
    first = -(-start // pages.PAGE) * pages.PAGE
    ranges = ((first, 32 * pages.PAGE),)

    def copied() -> bool:
        before = _inside(pages.written(), first, first + 32 * pages.PAGE)
        done = pages.copy_in(ranges)
        after = _inside(pages.written(), first, first + 32 * pages.PAGE)
        return before == 0 and done == 32 * pages.PAGE and after == 32 and shared == kept

    assert _in_child(copied) == 0
    assert shared == kept


def test_pages_that_are_not_mapped_any_more_are_skipped():
    assert pages.copy_in(((0, pages.PAGE),)) == 0


def test_a_probe_that_never_ends_is_killed_and_reports_nothing(monkeypatch):
    monkeypatch.setattr(pages, "PROBE_SECONDS", 0.1)
    assert pages.learn(lambda: signal.pause()) == ()
