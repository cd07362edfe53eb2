"""Frames: one line of JSON followed by raw blobs, so that no side ever unpickles.

A frame is a JSON object on one line whose "blob_sizes" key lists the byte sizes of the raw
blobs that follow it back to back. A stream is a sequence of frames, so a long-running worker
can send many (one per case, or training metrics every N steps) and the reader gets each as
soon as it is complete; a packet (on a SOCK_SEQPACKET socket) holds exactly one frame.

    >>> write_frame(fd, {"kind": "case", "name": "lecture"}, [tensorwire.pack(tensors)])
    >>> frame = FrameReader(fd).read(deadline=time.monotonic() + 5)
    >>> frame.header["name"], bytes(frame.blobs[0])
"""

from __future__ import annotations

import json
import os
import select
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

BLOB_SIZES = "blob_sizes"
MAX_HEADER = 4 * 1024**2
MAX_PACKET = 256 * 1024
# One read of a stream: a few frames' headers, not a whole job (each byte it reads is copied once
# more into the buffer, and the body's bytes once more into the body).
CHUNK = 64 * 1024
IOV_MAX = 1024  # buffers one writev(2) takes at most (Linux's UIO_MAXIOV)


class ProtocolError(Exception):
    """A peer sent something that is not a well-formed frame, or too much of it."""


@dataclass(frozen=True)
class Frame:
    """One decoded frame: its JSON header (without blob_sizes) and its blobs."""

    header: dict
    blobs: tuple[memoryview, ...] = ()


def encode_header(header: dict, sizes: list[int]) -> bytes:
    """Return the header line for a frame whose blobs have these sizes."""
    if BLOB_SIZES in header:
        raise ValueError(f"{BLOB_SIZES!r} is reserved in frame headers")
    line = json.dumps({**header, BLOB_SIZES: sizes}, separators=(",", ":"), allow_nan=False)
    return line.encode() + b"\n"


def decode_header(line: bytes, max_body: int) -> tuple[dict, list[int]]:
    """Parse a header line; return the header and its blob sizes, or raise ProtocolError."""
    try:
        header = json.loads(line)
    except (ValueError, RecursionError) as e:
        raise ProtocolError(f"bad header: {e}") from None
    if not isinstance(header, dict):
        raise ProtocolError("header is not an object")
    sizes = header.pop(BLOB_SIZES, None)
    if not isinstance(sizes, list) or not all(type(n) is int and n >= 0 for n in sizes):
        raise ProtocolError("bad blob sizes")
    if sum(sizes) > max_body:
        raise ProtocolError(f"frame body of {sum(sizes)} bytes is over {max_body}")
    return header, sizes


def write_frame(fd: int, header: dict, blobs: Iterable = (), deadline: float | None = None) -> None:
    """Write one frame to fd, gathered in as few calls as the fd takes (a reader is woken once
    per call); with a deadline the fd is made non-blocking and waited on."""
    views = [memoryview(b).cast("B") for b in blobs]
    chunks = [memoryview(encode_header(header, [v.nbytes for v in views])), *views]
    if deadline is not None:
        os.set_blocking(fd, False)
    chunks = [c for c in chunks if c.nbytes]
    while chunks:
        try:
            written = os.writev(fd, chunks[:IOV_MAX])
        except BlockingIOError:
            wait_ready(fd, select.POLLOUT, deadline)
            continue
        chunks = _after(chunks, written)


def _after(chunks: list[memoryview], written: int) -> list[memoryview]:
    """Return what is left of chunks once `written` bytes of them are written."""
    while chunks and written >= chunks[0].nbytes:
        written -= chunks.pop(0).nbytes
    if written:
        chunks[0] = chunks[0][written:]
    return chunks


def wait_ready(fd: int, events: int, deadline: float | None) -> None:
    """Block until fd is ready for events, or raise TimeoutError at the deadline."""
    poller = select.poll()
    poller.register(fd, events)
    timeout = None if deadline is None else max(0.0, deadline - time.monotonic()) * 1000
    if not poller.poll(timeout):
        raise TimeoutError("peer did not answer in time")


def receive_control(
    sock: socket.socket, deadline: float, who: str, failure: type, status: Callable
) -> dict:
    """Return a child's next control packet (closing any fds it carried), or raise `failure`
    naming `who` (e.g. "zygote 4242"): it did not answer by the deadline, spoke garbage, or
    exited (with `status()`, its exit status, e.g. "zygote 4242 exited (-9)")."""
    header, fds = receive_with_fds(sock, deadline, who, failure, status)
    _close_all(fds)
    return header


def receive_with_fds(
    sock: socket.socket, deadline: float, who: str, failure: type, status: Callable
) -> tuple[dict, list[int]]:
    """As `receive_control`, but return the fds the packet carried too (the caller's now)."""
    try:
        wait_ready(sock.fileno(), select.POLLIN, deadline)
        message = recv_packet(sock)
    except TimeoutError:
        raise failure(f"{who} did not answer in time") from None
    except (OSError, ProtocolError) as e:
        raise failure(f"{who}: {e!r}") from e
    if message is None:
        raise failure(f"{who} exited ({status()})")
    return message


class FrameReader:
    """Read frames from a file descriptor, with a byte budget for the whole stream."""

    def __init__(self, fd: int, budget: int = 2**62, max_header: int = MAX_HEADER):
        self.fd, self.budget, self.max_header = fd, budget, max_header
        self.received = 0
        self._buf = bytearray()

    def read(self, deadline: float | None = None) -> Frame | None:
        """Return the next frame, or None at a clean end of stream."""
        line = self._line(deadline)
        if line is None:
            return None
        header, sizes = decode_header(line, self.budget - self.received)
        body = self._exact(sum(sizes), deadline)
        return Frame(header, _split(body, sizes))

    def _line(self, deadline: float | None) -> bytes | None:
        """Return the next header line without its newline, or None at end of stream."""
        scanned = 0
        while (end := self._buf.find(b"\n", scanned)) < 0:
            scanned = len(self._buf)
            if scanned > self.max_header:
                raise ProtocolError("header line too long")
            if not self._fill(deadline):
                if self._buf:
                    raise ProtocolError("stream ended inside a header")
                return None
        line = bytes(self._buf[:end])
        del self._buf[: end + 1]
        return line

    def _fill(self, deadline: float | None) -> bool:
        """Append what the fd has to the buffer; return False at end of stream."""
        if deadline is not None:
            wait_ready(self.fd, select.POLLIN, deadline)
        chunk = os.read(self.fd, CHUNK)
        self._count(len(chunk))
        self._buf += chunk
        return bool(chunk)

    def _exact(self, n: int, deadline: float | None) -> bytearray:
        """Return exactly n more bytes of the stream."""
        body = bytearray(n)
        view = memoryview(body)
        have = min(n, len(self._buf))
        with memoryview(self._buf) as buffered:
            view[:have] = buffered[:have]
        del self._buf[:have]
        while have < n:
            if deadline is not None:
                wait_ready(self.fd, select.POLLIN, deadline)
            got = os.readv(self.fd, [view[have:]])
            if not got:
                raise ProtocolError("stream ended inside a frame body")
            self._count(got)
            have += got
        return body

    def _count(self, n: int) -> None:
        """Charge n received bytes to the budget."""
        self.received += n
        if self.received > self.budget:
            raise ProtocolError(f"stream is over its budget of {self.budget} bytes")


def _split(body: bytearray, sizes: list[int]) -> tuple[memoryview, ...]:
    """Cut a frame body into its blobs without copying."""
    view, start, blobs = memoryview(body), 0, []
    for size in sizes:
        blobs.append(view[start : start + size])
        start += size
    return tuple(blobs)


def send_packet(sock: socket.socket, header: dict, fds: Iterable[int] = ()) -> None:
    """Send one header-only frame as one packet, passing fds along with it."""
    socket.send_fds(sock, [encode_header(header, [])], list(fds))


def recv_packet(sock: socket.socket, max_fds: int = 4) -> tuple[dict, list[int]] | None:
    """Receive one packet; return its header and any fds, or None when the peer has gone."""
    data, fds, flags, _ = socket.recv_fds(sock, MAX_PACKET, max_fds)
    if not data:
        _close_all(fds)
        return None
    if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) or not data.endswith(b"\n"):
        _close_all(fds)
        raise ProtocolError("packet truncated")
    header, _ = decode_header(data[:-1], 0)
    return header, fds


def _close_all(fds: Iterable[int]) -> None:
    """Close received fds that will not be used."""
    for fd in fds:
        os.close(fd)
