"""Frames over pipes and packets over sockets: round trips, budgets, deadlines, bad input."""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import threading
import time
import tracemalloc

import pytest

from grader.sandbox.protocol import (
    FrameReader,
    ProtocolError,
    encode_header,
    recv_packet,
    send_packet,
    write_frame,
)


@pytest.fixture
def pipe():
    r, w = os.pipe()
    yield r, w
    for fd in (r, w):
        with contextlib.suppress(OSError):
            os.close(fd)


def test_frames_round_trip_in_order(pipe):
    r, w = pipe
    big = os.urandom(3 * 1024**2)
    frames = [({"kind": "a", "n": [1, 2.5, "é"]}, [b"xy", b"", big]), ({"kind": "b"}, [])]
    writer = threading.Thread(target=lambda: [write_frame(w, h, b) for h, b in frames])
    writer.start()
    reader = FrameReader(r)
    for header, blobs in frames:
        frame = reader.read(time.monotonic() + 5)
        assert frame.header == header
        assert [bytes(b) for b in frame.blobs] == blobs
    writer.join()
    os.close(w)
    assert reader.read(time.monotonic() + 5) is None


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b'{"kind": "a", "blob_sizes": [4]}\nab', "inside a frame body"),
        (b'{"kind": "a", "blob_sizes"', "inside a header"),
        (b"[1, 2]\n", "not an object"),
        (b"{nope\n", "bad header"),
        (b'{"blob_sizes": [-1]}\n', "bad blob sizes"),
        (b'{"blob_sizes": [true]}\n', "bad blob sizes"),
        (b'{"kind": "a"}\n', "bad blob sizes"),
        (b'{"blob_sizes": [99999]}\n', "over"),
        (b"[" * 60000 + b"\n", "bad header"),
        (b"x" * 5000, "too long"),
    ],
)
def test_malformed_streams_are_rejected(pipe, data, error):
    r, w = pipe
    os.write(w, data)
    os.close(w)
    with pytest.raises(ProtocolError, match=error):
        FrameReader(r, budget=len(data) + 2000, max_header=1000).read(time.monotonic() + 5)


def test_the_budget_covers_the_whole_stream(pipe):
    r, w = pipe
    for _ in range(3):
        write_frame(w, {"k": 1}, [b"x" * 100])
    reader = FrameReader(r, budget=300)
    with pytest.raises(ProtocolError, match="budget"):
        for _ in range(3):
            reader.read(time.monotonic() + 5)


def test_reading_waits_no_longer_than_the_deadline(pipe):
    # A reader that ignored its deadline would block on the silent pipe until pytest's timeout.
    with pytest.raises(TimeoutError):
        FrameReader(pipe[0]).read(time.monotonic() + 0.2)


def test_writing_to_a_full_pipe_times_out(pipe):
    with pytest.raises(TimeoutError):
        write_frame(pipe[1], {}, [b"x" * 10**7], time.monotonic() + 0.2)


def test_blob_sizes_is_reserved():
    with pytest.raises(ValueError):
        encode_header({"blob_sizes": []}, [])


def test_packets_carry_fds():
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    r, w = os.pipe()
    send_packet(ours, {"kind": "run", "id": 1}, [r, w])
    send_packet(ours, {"kind": "stop"})
    header, fds = recv_packet(theirs)
    assert header == {"kind": "run", "id": 1} and len(fds) == 2
    os.write(fds[1], b"hi")
    assert os.read(r, 2) == b"hi"
    assert recv_packet(theirs) == ({"kind": "stop"}, [])
    ours.close()
    assert recv_packet(theirs) is None
    for fd in (r, w, *fds):
        os.close(fd)
    theirs.close()


def test_many_blobs_and_partial_writes_arrive_whole_with_a_deadline(pipe):
    r, w = pipe
    blobs = [os.urandom(i % 97) for i in range(2500)] + [os.urandom(200_000)]  # > IOV_MAX, > pipe
    writer = threading.Thread(
        target=write_frame, args=(w, {"kind": "m"}, blobs, time.monotonic() + 30)
    )
    writer.start()
    frame = FrameReader(r).read(time.monotonic() + 30)
    writer.join()
    assert frame.header == {"kind": "m"}
    assert [bytes(b) for b in frame.blobs] == blobs


def test_a_frame_that_fits_the_pipe_is_written_in_one_call(pipe, monkeypatch):
    calls = []
    real = os.writev
    monkeypatch.setattr(
        os, "writev", lambda fd, chunks: calls.append(len(chunks)) or real(fd, chunks)
    )
    write_frame(pipe[1], {"kind": "case"}, [b"header", b"a" * 1000, b"b" * 2000])
    assert calls == [4]  # the frame's line and its three blobs: the reader is woken once
    frame = FrameReader(pipe[0]).read(time.monotonic() + 5)
    assert [bytes(b) for b in frame.blobs] == [b"header", b"a" * 1000, b"b" * 2000]


def test_a_buffered_frame_is_read_with_one_copy_of_its_body(pipe):
    """A worker's job waits whole in its widened pipe: reading it allocates the body once and a
    read's worth (protocol.CHUNK) besides, not the body four times over (in a fresh fork every
    page allocated and written is a page fault: bench/README.md, issue 39, 2026-12-08)."""
    r, w = pipe
    body = os.urandom(600_000)
    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 1024**2)  # Linux's pipe-max-size, as client._widen
    write_frame(w, {"kind": "job"}, [body])
    tracemalloc.start()
    try:
        frame = FrameReader(r).read(time.monotonic() + 5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert bytes(frame.blobs[0]) == body
    assert peak < 1.5 * len(body), f"reading the frame held {peak:,} bytes at its peak"
