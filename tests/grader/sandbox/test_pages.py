"""The pages a run writes and the file pages it reads (pages.py): learnt by a probe, brought
into each spare at once, and nothing else about the spare changes (a copied page holds what the
zygote's held, a mapped one its file's bytes). A probe is
forked only while no worker is alive, and becomes dumpable only in the zygote's own user
namespace (docs/sandbox.md, "The probe's two opens")."""

from __future__ import annotations

import ctypes
import mmap
import os
import signal

import pytest

from grader.sandbox import isolation, layers, pages

SIZE = 64 * pages.PAGE
USERNS = os.geteuid() != 0  # without root a zygote is in a user namespace of its own


_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.mmap.restype = ctypes.c_void_p
_LIBC.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_long)  # fmt: skip
_LIBC.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)


@pytest.fixture
def file_pages(tmp_path):
    """Return a function mapping a new file of SIZE random bytes read-only and private, as a
    library's code is mapped; return its address and bytes (unmapped after the test)."""
    made = []

    def map_one() -> tuple[int, bytes]:
        path = tmp_path / f"file{len(made)}"
        path.write_bytes(os.urandom(SIZE))
        fd = os.open(path, os.O_RDONLY)
        try:
            address = _LIBC.mmap(None, SIZE, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
        finally:
            os.close(fd)
        assert address not in (None, ctypes.c_void_p(-1).value)
        made.append(address)
        return address, path.read_bytes()

    yield map_one
    for address in made:
        _LIBC.munmap(address, SIZE)


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


def _like_a_zygote(check) -> int:
    """Fork; in the child be what a zygote is (without root in a user namespace of its own,
    not dumpable), run check() and exit; return its exit code (0 when it held)."""

    def zygote_check() -> bool:
        if USERNS:
            isolation.enter_userns()
        layers.shield()
        return check()

    return _in_child(zygote_check)


def _learnt_the_written_pages(userns: bool) -> bool:
    """Return whether a probe reports the pages its job wrote and not those it only read."""
    written, read = bytearray(b"z" * SIZE), bytearray(b"r" * SIZE)
    start_w, start_r = _address(written), _address(read)

    def job() -> None:
        written[:: pages.PAGE] = b"w" * len(written[:: pages.PAGE])
        assert read.count(b"r") == SIZE

    ranges = pages.learn(job, userns).written
    return (
        _inside(ranges, start_w, start_w + SIZE) >= 62  # the first and last may be cut
        and _inside(ranges, start_r, start_r + SIZE) == 0
        and written == b"z" * SIZE  # the probe wrote its own copy
    )


def test_a_probe_reports_the_pages_its_job_wrote_and_not_those_it_only_read():
    assert _like_a_zygote(lambda: _learnt_the_written_pages(USERNS)) == 0


def test_a_probe_reports_the_file_pages_its_job_read_and_not_the_others(file_pages):
    (read, _), (other, _) = file_pages(), file_pages()

    def job() -> None:
        for page in range(0, SIZE, pages.PAGE):
            ctypes.string_at(read + page, 1)

    def check() -> bool:
        learnt = pages.learn(job, USERNS)
        return _inside(learnt.read, read, read + SIZE) == 64 and not _inside(
            learnt.read, other, other + SIZE
        )

    assert _like_a_zygote(check) == 0


def test_no_probe_is_forked_while_a_child_of_the_zygote_is_alive():
    def check() -> bool:
        read, write = os.pipe()
        if (child := os.fork()) == 0:  # a worker, say: alive until the pipe closes
            os.close(write)
            os.read(read, 1)
            os._exit(0)
        os.close(read)
        with_child = pages.learn(lambda: None, USERNS), pages.alone()
        os.close(write)
        os.waitpid(child, 0)
        return (
            with_child == (pages.Learnt(), False)
            and pages.alone()
            and _learnt_the_written_pages(USERNS)
        )

    assert _like_a_zygote(check) == 0


@pytest.mark.skipif(os.geteuid() == 0, reason="root opens its /proc files while not dumpable")
def test_outside_a_user_namespace_of_its_own_a_probe_stays_undumpable_and_learns_nothing():
    def check() -> bool:
        layers.shield()  # a zygote where no user namespace could be made
        return pages.learn(lambda: None) == pages.Learnt() and not _learnt_the_written_pages(False)

    assert _in_child(check) == 0


def test_a_probe_whose_job_fails_reports_nothing():
    def job() -> None:
        raise RuntimeError("made-up failure")

    def check() -> bool:
        return pages.learn(job, USERNS) == pages.Learnt() and _learnt_the_written_pages(USERNS)

    assert _like_a_zygote(check) == 0


def test_copied_pages_become_the_spares_own_and_keep_the_zygotes_bytes():
    shared = bytearray(os.urandom(SIZE))
    kept, start = bytes(shared), _address(shared)
    first = -(-start // pages.PAGE) * pages.PAGE
    ranges = ((first, 32 * pages.PAGE),)

    def copied() -> bool:
        before = _inside(pages.written(pages.own_files(USERNS)), first, first + 32 * pages.PAGE)
        done = pages.copy_in(pages.Learnt(written=ranges))
        after = _inside(pages.written(pages.own_files(USERNS)), first, first + 32 * pages.PAGE)
        return before == 0 and done == 32 * pages.PAGE and after == 32 and shared == kept

    assert _like_a_zygote(copied) == 0
    assert shared == kept


def test_read_pages_are_mapped_into_a_spare_at_once_and_hold_the_files_bytes(file_pages):
    address, kept = file_pages()
    ctypes.string_at(address, SIZE)  # mapped here: a fork does not copy the entries

    def mapped_in() -> bool:
        before = _inside(pages.touched(pages.own_files(USERNS)).read, address, address + SIZE)
        pages.copy_in(pages.Learnt(read=((address, SIZE),)))
        after = _inside(pages.touched(pages.own_files(USERNS)).read, address, address + SIZE)
        return before == 0 and after == 64 and ctypes.string_at(address, SIZE) == kept

    assert _like_a_zygote(mapped_in) == 0


def test_pages_that_are_not_mapped_any_more_are_skipped():
    assert pages.copy_in(pages.Learnt(((0, pages.PAGE),), ((0, pages.PAGE),))) == 0


def test_a_probe_that_never_ends_is_killed_and_reports_nothing(monkeypatch):
    usual = pages.PROBE_SECONDS
    monkeypatch.setattr(pages, "PROBE_SECONDS", 0.1)

    def check() -> bool:
        hung = pages.learn(lambda: signal.pause(), USERNS)
        pages.PROBE_SECONDS = usual  # the next probe has its usual time (0.1 s is short at load 13)
        return hung == pages.Learnt() and _learnt_the_written_pages(USERNS)

    assert _like_a_zygote(check) == 0
