"""The zygote: imports torch once, then hands each run to a worker forked and confined in advance.

It talks to the parent over a SOCK_SEQPACKET socket, one JSON packet per message:
    zygote -> parent  {"kind": "ready", "layers": {...}, "pid": n}            once, at start-up
    parent -> zygote  {"kind": "run", "id": n, "limits": {...}, "warm": bool}
    zygote -> parent  {"kind": "go", "id": n}  + fds: the worker's payload pipe (write end) and
                                                 result pipe (read end)
    parent -> zygote  {"kind": "stop", "id": n}                   kill the running worker now
    zygote -> parent  {"kind": "exit", "id": n, "code", "signal", "cpu", "wall", "killed", "error"}
While the zygote is idle it forks a spare on two fresh pipes, and the spare shuts itself in
(namespaces, limits, uid, capabilities, syscall filter, native calls removed) and waits on its
payload pipe. A run hands the parent the pipes' other ends, so the worker reads its job straight
from the parent and streams frames straight back: no learner's code, inputs or results pass
through the zygote's memory, which later workers inherit. A spare is confined with the limits of
the run before it (the defaults at first); a run that asks for others gets a spare made anew.
The first spare warms up (runs a made-up job); a later one only when its run's request said
"warm" (the machine had CPU to spare: pressure.py).
client.BOOT starts the zygote, isolated before this module is imported, with a job kind:
"grade" serves runs of worker.serve until the parent goes away; "train" (stream.py) serves one
run of training/loop.py's serve and exits. Both fork, confine and watch their workers the same way.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import select
import shutil
import signal
import socket
import tempfile
import time
from dataclasses import asdict, dataclass, replace

from . import audit, confine, isolation, nativecalls, noautograd, worker
from .protocol import FrameReader, ProtocolError, recv_packet, send_packet, write_frame
from .records import Limits
from .training import loop
from .warmup import huge_pages, prepare

TICK = 0.005  # seconds between checks on kernels without pidfd_open
PF_EXITING = 0x4  # a task flag in /proc/<pid>/stat: the process has begun to exit
# Each job kind: what the worker serves, and the largest job header (from the trusted parent).
JOBS = {"grade": (worker.serve, 256 * 1024**2), "train": (loop.serve, 1024**2)}


@dataclass(frozen=True)
class Spare:
    """A worker forked and confined in advance, waiting on its payload pipe for a run."""

    pid: int
    ends: tuple[int, int]  # the pipes' ends its run's parent gets: payload (write), result (read)
    limits: dict  # the limits it confined itself with
    workdir: str  # "" when the run has its own mount namespace (its work dir dies with it)
    mounted: bool = False  # the work dir is its own tmpfs, unmounted when the run ends


def main(sock_fd: int, layers: dict[str, str], kind: str = "grade", operations=()) -> None:
    """Prepare, announce the layers, then serve runs of one job kind until the parent goes away.

    A "train" zygote serves one run and exits. `operations` are those the dispatch audit lets
    through (the exercise language's, from the parent: this process cannot read the project).
    """
    audit.allow(operations)
    sock = socket.socket(fileno=sock_fd)
    _batch()
    plan, layers = _plan(layers, kind)
    send_packet(sock, {"kind": "ready", "layers": layers, "pid": os.getpid()})
    spare, runs = fork_spare(plan, asdict(Limits())), 0
    while (message := _receive(sock)) is not None:
        header, fds = message
        _close(fds)
        if header.get("kind") != "run" or not isinstance(limits := header.get("limits"), dict):
            continue
        spare = _fitting(spare, plan, limits)
        report = run(header, spare, sock)
        if report.get("killed") == "parent" or not _send(sock, report) or kind == "train":
            return
        runs += 1
        if runs == 1:  # no worker is alive now: cheaper forks from the next spare on
            huge_pages()
        plan = replace(plan, warm=header.get("warm") is True)
        spare = fork_spare(plan, limits)


def _never() -> bool:
    """Say that no run has arrived (a warm-up outside a spare goes to its end)."""
    return False


def _batch() -> None:
    """Schedule the zygote and every worker it forks as batch work (SCHED_BATCH): woken by the
    grader's packets and pipes, they take a free core but never preempt the grader mid-step.
    Where the kernel refuses, nothing changes."""
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


def _fitting(spare: Spare | None, plan: confine.Plan, limits: dict) -> Spare | None:
    """Return the spare if it was confined with these limits, else a new one that is."""
    if spare is not None and spare.limits == limits:
        return spare
    if spare is not None:
        _close(list(spare.ends))
        _reap(spare)
    return fork_spare(plan, limits)


def _plan(layers: dict[str, str], kind: str) -> tuple[confine.Plan, dict[str, str]]:
    """Warm up, probe, then hide this package's sources; return the plan and every layer."""
    layers = dict(layers)
    mapped = layers.pop("userns-uid", None)  # without root: was a worker uid mapped?
    plan, more = prepare()
    own = layers.get("ipc") == "on"  # each run gets its own mount, IPC and PID view
    parent = 0 if own else os.getpid()  # a worker in the PID namespace sees no parent
    plan = replace(plan, tmpfs=layers.get("filesystem") == "on", own=own, zygote=parent, job=kind)
    if mapped == "on":
        plan, more["uid"] = replace(plan, uid=isolation.USERNS_WORKER_ID), "on"
    elif mapped is not None:
        more["uid"] = f"{mapped}; {more['uid'].removeprefix('unavailable: ')}"
        if own:
            more["uid"] += " (without capabilities, and unable to see the grader or the zygote)"
    if layers.get("filesystem") == "on":
        isolation.seal(os.path.dirname(os.path.abspath(__file__)))
    more["dispatch-audit"] = _attempt(lambda: audit.rehearse(lambda: worker.warm_up(_never)))
    more["autograd"] = _attempt(lambda: noautograd.disable(inference=kind == "train"))
    more["native-calls"] = nativecalls.survey()  # last: after every import
    return plan, {**layers, **more}


def _attempt(step) -> str:
    """Run one step of making autograd unusable here (every worker forked later inherits it)."""
    try:
        step()
    except (AttributeError, KeyError, RuntimeError) as e:  # a torch without these switches
        return f"unavailable: {e!r}"
    return "on"


def _send(sock: socket.socket, report: dict) -> bool:
    """Send the exit report; return False when the parent has gone (nobody is left to serve)."""
    try:
        send_packet(sock, report)
    except (BrokenPipeError, ConnectionResetError):
        return False
    return True


def fork_spare(plan: confine.Plan, limits: dict) -> Spare | None:
    """Fork a worker that confines itself with these limits and waits for a run on two fresh
    pipes; None if that fails."""
    try:
        workdir, mounted = ("", False) if plan.own else _workdir(plan)
    except OSError:
        return None
    payload_r, payload_w = os.pipe()
    result_r, result_w = os.pipe()
    gc.freeze()
    try:
        pid = os.fork()
    except OSError:
        _close([payload_r, payload_w, result_r, result_w])
        _remove(workdir, mounted)
        return None
    if pid == 0:
        _worker((payload_r, result_w), workdir, plan, limits)
    _close([payload_r, result_w])
    return Spare(pid, (payload_w, result_r), limits, workdir, mounted)


def _workdir(plan: confine.Plan) -> tuple[str, bool]:
    """Create a fresh empty work directory owned by the worker's uid; say if it is a tmpfs."""
    path = tempfile.mkdtemp(prefix="run-", dir="/tmp")
    if plan.tmpfs:
        try:
            isolation.mount_workdir(path, plan.uid)
        except OSError:
            os.rmdir(path)
            raise
        return path, True
    if plan.uid is not None:
        os.chown(path, plan.uid, plan.uid)
    return path, False


def _remove(workdir: str, mounted: bool) -> None:
    """Remove a work dir without following links: unmount its tmpfs, else delete the tree."""
    if not workdir:
        return
    if mounted:
        with contextlib.suppress(OSError):
            isolation.unmount(workdir)
            os.rmdir(workdir)
            return
    shutil.rmtree(workdir, ignore_errors=True)


def _worker(pipes: tuple[int, int], workdir: str, plan: confine.Plan, limits: dict) -> None:
    """In the spare: keep its two pipes, detach, confine itself with the limits, take autograd
    and native calls away, then wait for a run, run the job and exit; never returns.

    Everything but reading the job is done before the run arrives, off its critical path.
    Before the zygote's first run, a made-up job warms the spare up (the first submission's
    wait); later, only when the machine has CPU to spare (plan.warm, from the run's request).
    A cold spare's run pays for the pages it writes and reads as it touches them: a few ms on
    its critical path, against about 10 ms of the spare's CPU, and under load CPU is what a
    class waits for (bench/README.md, issue 39).
    """
    code, adopted = confine.EXIT_SETUP, False
    serve, max_header = JOBS[plan.job]
    try:
        if plan.own:
            isolation.enter_run(plan.uid)
        confine.adopt_fds(result_fd=pipes[1], payload_fd=pipes[0])
        adopted = True
        confine.detach(workdir or isolation.WORKDIR)
        worker.switch_off()
        confine.confine(plan, limits, confine.syscall_filter(plan))
        worker.remove_native_calls()
        if plan.job == "grade":  # a training run is not audited (training/loop.py)
            audit.enter()  # before the warm-up, so that the audit's own path is warm too
        if plan.warm:  # a warm-up that fails costs only speed
            with contextlib.suppress(Exception):
                worker.warm_up(lambda: _readable(confine.PAYLOAD_FD))
        payload = FrameReader(confine.PAYLOAD_FD, max_header=max_header).read()
        if payload is None:
            os._exit(0)  # no run came: the spare was discarded or the zygote is going away
        os.close(confine.PAYLOAD_FD)
        code = serve(payload, confine.RESULT_FD)
    except BaseException as e:
        with contextlib.suppress(BaseException):
            if adopted:  # before that, fd 3 is not the result pipe
                write_frame(confine.RESULT_FD, {"kind": "internal", "log": f"worker: {e!r}"})
    finally:
        os._exit(code)


def _readable(fd: int) -> bool:
    """Return whether fd has something to read now (a spare's run has arrived)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


def run(header: dict, spare: Spare | None, sock: socket.socket) -> dict:
    """Hand the spare's pipes to the parent, watch the run, reap it; return the exit report."""
    report = {"kind": "exit", "id": header.get("id"), "killed": None}
    started = time.monotonic()
    try:
        wall = header["limits"]["wall_seconds"]
        send_packet(sock, {"kind": "go", "id": header.get("id")}, spare.ends)
    except (AttributeError, KeyError, TypeError, OSError) as e:
        report["error"] = f"could not start a worker: {e!r}"
    finally:
        if spare is not None:
            _close(list(spare.ends))
    if spare is None:
        return report
    try:
        if "error" not in report:
            report["killed"] = watch(spare.pid, sock, started + wall)
    finally:
        report |= _reap(spare)
    return report | {"wall": time.monotonic() - started}


def _reap(spare: Spare) -> dict:
    """Kill what is left of a worker, reap it, remove its work dir; return how it ended."""
    _kill_group(spare.pid)
    _, status, usage = os.wait4(spare.pid, 0)
    _remove(spare.workdir, spare.mounted)
    ended = {"code": os.WEXITSTATUS(status), "signal": None}
    if os.WIFSIGNALED(status):
        ended = {"code": None, "signal": os.WTERMSIG(status)}
    return ended | {"cpu": usage.ru_utime + usage.ru_stime, "maxrss": usage.ru_maxrss * 1024}


def watch(pid: int, sock: socket.socket, deadline: float) -> str | None:
    """Wait for the worker to end; kill its process group at the deadline or when asked."""
    pidfd = _pidfd(pid)
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            wait = remaining if pidfd is not None else min(remaining, TICK)
            ready = {fd for fd, _ in poller.poll(math.ceil(wait * 1000))}
            if pidfd in ready or (pidfd is None and _ended(pid)):
                return None
            if sock.fileno() in ready and (reason := _control(sock, pid)):
                return reason
        return "wall"
    finally:
        _kill_group(pid)
        if pidfd is not None:
            os.close(pidfd)


def _pidfd(pid: int) -> int | None:
    """Return a pidfd for the worker, or None on kernels without pidfd_open (then poll)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _ended(pid: int) -> bool:
    """Return whether the worker has ended, without reaping it."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _control(sock: socket.socket, pid: int) -> str | None:
    """Handle a packet that arrived during a run: "stop", or "parent" when the parent is gone.

    At "stop" the run's whole process group is killed at once, whatever its threads or leader
    are doing: a leader that has exited while other threads live would otherwise hold the slot.
    A worker already on its way out (its stream ended because it crashed or exited) is not
    reported "stopped": it ends as it chose.
    """
    message = _receive(sock)
    if message is None:
        return "parent"
    header, fds = message
    _close(fds)
    if header.get("kind") != "stop":
        return None
    exiting = _exiting(pid)
    _kill_group(pid)
    return None if exiting else "stop"


def _exiting(pid: int) -> bool:
    """Return whether the worker has begun to exit (PF_EXITING) or is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return True
    return fields[0] in (b"Z", b"X") or bool(int(fields[6]) & PF_EXITING)


def _kill_group(pid: int) -> None:
    """SIGKILL the worker and its whole process group (it leads its own session)."""
    for kill in (os.kill, os.killpg):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)


def _receive(sock: socket.socket) -> tuple[dict, list[int]] | None:
    """Receive one control packet, or None when the parent has gone or sent garbage."""
    try:
        return recv_packet(sock)
    except (OSError, ProtocolError):
        return None


def _close(fds: list[int]) -> None:
    """Close each fd."""
    for fd in fds:
        os.close(fd)
