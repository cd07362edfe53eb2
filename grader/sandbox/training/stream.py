"""The parent's handle on one long-running sandbox run that streams frames (Exercise 4).

A StreamRun starts a zygote of job kind "train" (zygote.py) through its isolating boot, hands
it one job, and reads the worker's frames as they come. The worker is confined like a grading
worker; it dies with its trainer (PR_SET_PDEATHSIG), and the trainer kills it and exits when
this process goes away (end of file on the control socket).

    >>> run = StreamRun(job, Limits(cpu_seconds=600, wall_seconds=660), budget=2**26)
    >>> run.launch()                      # waits for the trainer to import torch (~2 s)
    >>> frame = run.next_frame(timeout=0.5)   # None when no frame began in time
    >>> run.stop()                        # the worker's process group is killed now
    >>> report = run.finish()             # how it ended; nothing of it is left running
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
from dataclasses import asdict

from .. import client
from ..protocol import (
    Frame,
    FrameReader,
    receive_control,
    receive_with_fds,
    send_packet,
    write_frame,
)
from ..records import Limits

FRAME_TIMEOUT = 30.0  # seconds for a frame to arrive whole once it has begun
EXIT_TIMEOUT = 5.0  # seconds for the trainer's exit report once the stream has ended
RUN_ID = 1


class StreamFailure(Exception):
    """The training process died, hung or broke the protocol."""


class Reader(FrameReader):
    """A frame reader that can wait for the next frame without consuming part of it."""

    def ready(self, timeout: float) -> bool:
        """Return whether a frame (or the end of the stream) can be read now or within timeout."""
        if b"\n" in self._buf:
            return True
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        return bool(poller.poll(max(0.0, timeout) * 1000))


class StreamRun:
    """One training process, its control socket, and the worker's result stream."""

    def __init__(self, job: tuple[dict, list], limits: Limits, budget: int):
        self.job, self.limits, self.budget = job, limits, budget
        self.layers: dict[str, str] = {}
        self.reader: Reader | None = None
        self.proc, self.sock = client.spawn("train")

    @property
    def pid(self) -> int:
        """Return the training process's pid (it leads its own process group)."""
        return self.proc.pid

    def launch(self) -> None:
        """Wait for the trainer, hand it the run and feed the job; raise StreamFailure."""
        ready = self._receive(time.monotonic() + client.START_TIMEOUT)
        if ready.get("kind") != "ready" or not isinstance(ready.get("layers"), dict):
            raise StreamFailure(f"bad ready message {ready!r}")
        self.layers = {str(k): str(v) for k, v in ready["layers"].items()}
        request = {"kind": "run", "id": RUN_ID, "limits": asdict(self.limits)}
        try:
            send_packet(self.sock, request)
        except OSError as e:
            raise StreamFailure(f"trainer {self.pid}: {e!r}") from e
        deadline = time.monotonic() + client.START_TIMEOUT
        who = f"trainer {self.pid}"
        go, fds = receive_with_fds(self.sock, deadline, who, StreamFailure, self.proc.poll)
        if go != {"kind": "go", "id": RUN_ID} or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            raise StreamFailure(f"{who}: expected its run's pipes, got {go!r}")
        payload_w, result_r = fds
        self.reader = Reader(result_r, budget=self.budget)
        _feed(payload_w, self.job, deadline)

    def next_frame(self, timeout: float) -> Frame | None:
        """Return the next frame, or None if none began within timeout; EOFError at the end."""
        if self.reader is None or not self.reader.ready(timeout):
            return None
        frame = self.reader.read(time.monotonic() + FRAME_TIMEOUT)
        if frame is None:
            raise EOFError("the worker's stream has ended")
        return frame

    def stop(self) -> None:
        """Ask the trainer to kill the worker's process group now (safe from any thread)."""
        with contextlib.suppress(OSError):
            send_packet(self.sock, {"kind": "stop", "id": RUN_ID})

    def finish(self) -> dict:
        """Return the trainer's exit report, then make sure nothing of the run is left."""
        try:
            report = self._receive(time.monotonic() + EXIT_TIMEOUT)
        except StreamFailure as e:
            report = {"kind": "exit", "error": str(e)}
        finally:
            self.close()
        return report

    def close(self) -> None:
        """Close our ends; kill the trainer's group (the worker dies with it) if it lingers."""
        self.sock.close()
        if self.reader is not None and self.reader.fd >= 0:
            os.close(self.reader.fd)
            self.reader.fd = -1
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """SIGKILL the trainer's process group and reap the trainer."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def _receive(self, deadline: float) -> dict:
        """Return the next control packet from the trainer."""
        who = f"trainer {self.pid}"
        return receive_control(self.sock, deadline, who, StreamFailure, self.proc.poll)


def _feed(fd: int, job: tuple[dict, list], deadline: float) -> None:
    """Write the job to the worker's payload pipe, then close it."""
    try:
        write_frame(fd, job[0], job[1], deadline)
    except (BrokenPipeError, TimeoutError):
        pass  # the worker died or stalled before reading; its exit report says why
    finally:
        os.close(fd)
