"""The training process: a one-run zygote for Exercise 4's long-running, streaming worker.

stream.py starts it through the zygote's own isolating boot (client.BOOT, with this module's
main as the entry), so it gets the same zygote-wide layers. It warms torch up, forks one worker
confined exactly like a grading worker (confine.detach, adopt_fds, confine), hands it the run,
and watches it with the zygote's own `run` (wall limit, stop requests, the parent going away).
Control socket, as the zygote's:
    trainer -> parent  {"kind": "ready", "layers": {...}, "pid": n}            once, at start-up
    parent -> trainer  {"kind": "run", "id": 1, "limits": {...}}  + fds: payload pipe (read end),
                                                                    result pipe (write end)
    parent -> trainer  {"kind": "stop", "id": 1}                   kill the worker's group now
    trainer -> parent  {"kind": "exit", "id": 1, "code", "signal", "cpu", "wall", "killed", ...}
The worker streams frames (trainloop.py) straight to the parent over the result pipe.
"""

from __future__ import annotations

import contextlib
import os
import socket
from dataclasses import replace

from . import confine, trainloop, zygote
from .protocol import FrameReader, ProtocolError, recv_packet, send_packet, write_frame
from .warmup import prepare

MAX_JOB_HEADER = 1024**2  # the job's header (code, settings) comes from the trusted parent


def main(sock_fd: int, layers: dict[str, str]) -> None:
    """Prepare, announce the layers, run one training job, report how it ended, exit."""
    sock = socket.socket(fileno=sock_fd)
    plan, more = prepare()
    plan = replace(plan, tmpfs=layers.get("filesystem") == "on")  # as the zygote's plan
    send_packet(sock, {"kind": "ready", "layers": {**layers, **more}, "pid": os.getpid()})
    message = _receive(sock)
    if message is None:
        return
    header, fds = message
    if header.get("kind") != "run" or len(fds) != 2:
        for fd in fds:
            os.close(fd)
        return
    report = zygote.run(header, fds, fork_trainee(plan), sock)
    if report.get("killed") != "parent":
        send_packet(sock, report)


def fork_trainee(plan: confine.Plan) -> zygote.Spare | None:
    """Fork the worker, which detaches and waits on its socket for the run; None on failure.

    Its work dir is made and removed exactly as a grading worker's (zygote._workdir, _remove).
    """
    try:
        workdir, mounted = zygote._workdir(plan)
    except OSError:
        return None
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        pid = os.fork()
    except OSError:
        ours.close()
        theirs.close()
        zygote._remove(workdir, mounted)
        return None
    if pid == 0:
        _trainee(theirs, workdir, plan)
    theirs.close()
    return zygote.Spare(pid, ours, workdir, mounted)


def _trainee(sock: socket.socket, workdir: str, plan: confine.Plan) -> None:
    """In the worker: detach, take the run, confine, train and exit; never returns.

    The same steps as a grading worker (zygote._worker), with trainloop.serve as the job.
    """
    code, adopted = confine.EXIT_SETUP, False
    try:
        confine.detach(sock.fileno(), workdir)
        message = recv_packet(sock)
        if message is None:
            os._exit(0)  # the trainer is going away
        header, fds = message
        confine.adopt_fds(result_fd=fds[1], payload_fd=fds[0])
        adopted = True
        payload = FrameReader(confine.PAYLOAD_FD, max_header=MAX_JOB_HEADER).read()
        os.close(confine.PAYLOAD_FD)
        confine.confine(plan, header["limits"])
        code = trainloop.serve(payload, confine.RESULT_FD)
    except BaseException as e:
        with contextlib.suppress(BaseException):
            if adopted:  # before that, fd 3 is not the result pipe
                write_frame(confine.RESULT_FD, {"kind": "internal", "log": f"trainee: {e!r}"})
    finally:
        os._exit(code)


def _receive(sock: socket.socket) -> tuple[dict, list[int]] | None:
    """Receive one control packet, or None when the parent has gone or sent garbage."""
    try:
        return recv_packet(sock)
    except (OSError, ProtocolError):
        return None
