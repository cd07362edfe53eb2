"""The parent's connection to one zygote: start it, send it runs, read results, restart it."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

from .codec import read_stream
from .pressure import spare_cpu
from .protocol import receive_control, receive_with_fds, send_packet, write_frame
from .records import Case, Limits

logger = logging.getLogger("grader.sandbox")

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 120.0  # seconds for a zygote to import torch and report ready
PIPE_DEFAULT, PIPE_BYTES = 64 * 1024, 1024**2  # a pipe's buffer: Linux's default, our most
GRACE = 3.0  # seconds past the wall limit before the zygote itself is presumed stuck
# seconds for a zygote to hand over its spare: after its first run it
# collapses its memory into huge pages before it forks the next spare, which a busy machine can
# stretch past the run's own wall limit (a dead zygote is seen at once, not after this)
HANDOVER = 60.0
ENV = {"PATH": os.defpath, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

# Run by a fresh interpreter: load libseccomp, apply the isolation layers while single-threaded,
# then import the zygote through a stub `grader` package so that grader/__init__.py (which may
# load exercises and solutions) never runs in a process whose memory every worker inherits.
# A held zygote first waits for the parent's GO (or the socket's end: then it exits).
BOOT = """\
import importlib.util, os, sys, types
root, sock, kind, operations = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if sys.argv[5] == "held" and os.read(sock, 16) != b"go":
    sys.exit(0)
try:  # it finds libseccomp with /sbin/ldconfig, which the new root leaves out
    import pyseccomp
except (ImportError, RuntimeError):
    pass  # seccomp.py says why the filter is unavailable
spec = importlib.util.spec_from_file_location(
    "_sandbox_isolation", root + "/grader/sandbox/isolation.py")
isolation = importlib.util.module_from_spec(spec)
spec.loader.exec_module(isolation)
layers = isolation.isolate(root)
grader = types.ModuleType("grader")
grader.__path__ = [root + "/grader"]
sys.modules["grader"] = grader
from grader.sandbox.zygote import main
main(sock, layers, kind, operations.split())
sys.stderr.flush()
os._exit(0)  # no interpreter teardown: torch's took about 0.5 s of CPU at every zygote's end
"""


def spawn(kind: str, held: bool = False) -> tuple[subprocess.Popen, socket.socket]:
    """Start a zygote of this job kind ("grade" or "train"); return it and our control socket.
    It is handed the operations its workers' dispatch audit lets through (read here: the
    zygote imports only the sandbox). A held one waits, before anything, for GO."""
    from grader.language import OPERATIONS

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with theirs:
        argv = [sys.executable, "-E", "-s", "-B", "-P", "-c", BOOT, str(ROOT)]
        argv += [str(theirs.fileno()), kind, " ".join(sorted(OPERATIONS))]
        argv += ["held" if held else "now"]
        proc = subprocess.Popen(
            argv, pass_fds=[theirs.fileno()], env=ENV, cwd="/",
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    return proc, ours


class ZygoteFailure(Exception):
    """The zygote died, hung or broke the protocol; it must be restarted."""


class ZygoteClient:
    """One zygote process, the control socket to it, and the layers it reported.

    A held one (`held=True`) is a process that waits, before it imports anything, until
    `release()` (or its first `ready()`) lets it start.
    """

    def __init__(self, held: bool = False):
        self.lock = threading.Lock()
        self.closed = False
        self._start(held)

    def _start(self, held: bool = False) -> None:
        """Start the zygote process with one end of a fresh socket pair."""
        self.proc, self.sock = spawn("grade", held)
        self.held, self.layers, self.runs = held, None, 0
        self.pending: tuple[int, float] | None = None  # (run id, deadline) of a deferred report

    @property
    def alive(self) -> bool:
        """Return whether the zygote's process is running (started, held or not, not closed,
        not dead)."""
        return not self.closed and self.proc.poll() is None

    def release(self) -> None:
        """Let a held zygote start: import torch, warm up, report ready (nothing if not held)."""
        if not self.held:
            return
        self.held = False
        with contextlib.suppress(OSError):  # closed or dead: its ready() says so
            self.sock.send(b"go")

    def ready(self) -> dict[str, str]:
        """Wait for the zygote's start-up report (releasing it if held); return its layers."""
        if self.closed:
            raise ZygoteFailure("the sandbox is closed")
        self.release()
        if self.proc.poll() is not None and self.layers is not None:
            logger.warning("sandbox zygote %d had died; restarting it", self.proc.pid)
            self.restart()
        if self.layers is None:
            header = self.receive(time.monotonic() + START_TIMEOUT)
            layers = header.get("layers")
            if header.get("kind") != "ready" or not isinstance(layers, dict):
                raise ZygoteFailure(f"bad ready message {header!r}")
            self.layers = {str(k): str(v) for k, v in layers.items()}
        return self.layers

    def receive(self, deadline: float) -> dict:
        """Return the next control packet from the zygote (ZygoteFailure once it is closed,
        even while waiting)."""
        who = f"zygote {self.proc.pid}"
        try:
            return receive_control(self.sock, deadline, who, ZygoteFailure, self.proc.poll)
        except (OSError, ValueError) as e:  # the socket was closed under us: fd -1
            if self.closed:
                raise ZygoteFailure("the sandbox is closed") from e
            raise

    def run(
        self,
        make_job: Callable[[], tuple[dict, list]],
        cases: Sequence[Case],
        limits: Limits,
        meanwhile: Callable[[], None] | None = None,
    ):
        """Run one job in a fresh worker; return the zygote's exit report and the stream.

        The job is made (`make_job()`) while the zygote hands over its spare, which is confined
        already; `meanwhile()` is called once the job is written, while the worker runs (the
        result pipe is widened so that the worker's frames wait in it). The worker is stopped
        as soon as its stream ends or is refused, whether or not
        it is complete, so a worker that lingers never holds the slot. A run whose stream ended
        complete returns at once; its exit report (which waits for the worker's teardown) is
        collected before the next run.
        """
        self._settle()
        self.ready()
        self.runs += 1
        self._ask(limits)
        job = make_job()
        payload_w, result_r = self._launch(time.monotonic() + HANDOVER)
        deadline = time.monotonic() + limits.wall_seconds + GRACE  # the worker has its run now
        try:
            _feed(payload_w, job, deadline)
            _in_the_meantime(meanwhile, result_r)
            stream = read_stream(result_r, cases, limits, deadline)
        except TimeoutError as e:
            raise ZygoteFailure(f"zygote {self.proc.pid} did not end the run in time") from e
        finally:
            os.close(result_r)
        self._stop_worker()  # its stream has ended or was refused: nothing more is read
        if stream.done and stream.error is None and stream.internal is None:
            self.pending = (self.runs, deadline + GRACE)
            return {"kind": "exit", "id": self.runs, "deferred": True}, stream
        return self._report(self.runs, deadline + GRACE), stream

    def _ask(self, limits: Limits) -> None:
        """Ask the zygote for a run with these limits, saying whether the spare it forks after
        the run may warm up (the machine has CPU to spare: pressure.py)."""
        request = {"kind": "run", "id": self.runs, "limits": asdict(limits)}
        request["warm"] = spare_cpu()
        try:
            send_packet(self.sock, request)
        except OSError as e:
            raise ZygoteFailure(f"zygote {self.proc.pid}: {e!r}") from e

    def _launch(self, deadline: float) -> tuple[int, int]:
        """Take the run's worker from the zygote: return our ends of its pipes (payload,
        result). From then on the run holds its slot until it ends."""
        who = f"zygote {self.proc.pid}"
        header, fds = receive_with_fds(self.sock, deadline, who, ZygoteFailure, self.proc.poll)
        if header != {"kind": "go", "id": self.runs} or len(fds) != 2:
            _close(*fds)
            raise ZygoteFailure(f"{who}: expected its run's pipes, got {header!r}")
        return fds[0], fds[1]

    def _stop_worker(self) -> None:
        """Free the slot now that the stream is over: a worker that lingers is killed at once."""
        try:
            send_packet(self.sock, {"kind": "stop", "id": self.runs})
        except OSError as e:
            logger.warning("sandbox: could not stop worker of run %d: %r", self.runs, e)

    def _report(self, run_id: int, deadline: float) -> dict:
        """Return the exit report of run run_id."""
        report = self.receive(deadline)
        if report.get("kind") != "exit" or report.get("id") != run_id:
            raise ZygoteFailure(f"unexpected report {report!r}")
        return report

    def _settle(self) -> None:
        """Collect the previous run's deferred exit report; restart the zygote if that fails."""
        if self.pending is None:
            return
        run_id, deadline = self.pending
        self.pending = None
        try:
            self._report(run_id, deadline)
        except ZygoteFailure as e:
            logger.error("sandbox: %s; restarting the zygote", e)
            self.restart()

    def restart(self) -> None:
        """Kill the zygote (its worker dies with it) and start a fresh one, unless closed."""
        if not self.closed:
            self.stop()
            self.closed = False
            self._start()

    def stop(self) -> None:
        """Close the socket so the zygote exits; kill it if it does not."""
        self.closed = True
        self.sock.close()
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _widen(fd: int, job: tuple[dict, list]) -> None:
    """Grow the payload pipe's buffer to hold the whole job where the kernel allows it (at
    most PIPE_BYTES; pipe-max-size), so that it is written in one go, not in turns with the
    worker reading it (bench/README.md, 2026-11-27); keep the default if refused."""
    size = sum(memoryview(b).nbytes for b in job[1]) + len(job[0].get("code", "")) + 4096
    if size > PIPE_DEFAULT:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, min(size, PIPE_BYTES))


def _in_the_meantime(meanwhile: Callable[[], None] | None, result_r: int) -> None:
    """Call meanwhile() while the worker runs; its frames wait in the widened result pipe."""
    if meanwhile is None:
        return
    with contextlib.suppress(OSError):
        fcntl.fcntl(result_r, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    try:
        meanwhile()
    except Exception:
        logger.exception("sandbox: the work done during a run failed")


def _feed(fd: int, job: tuple[dict, list], deadline: float) -> None:
    """Write the job to the worker's payload pipe, then close it."""
    _widen(fd, job)
    try:
        write_frame(fd, job[0], job[1], deadline)
    except BrokenPipeError:
        pass  # the worker died before reading; its exit report says why
    finally:
        os.close(fd)


def _close(*fds: int) -> None:
    """Close each fd."""
    for fd in fds:
        os.close(fd)
