"""Starting a zygote's process, without torch: the server can start its first one before it
imports torch itself (`start_early`), on the same busy core."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
"""

_early: list[tuple[subprocess.Popen, socket.socket]] = []
_early_lock = threading.Lock()


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


def start_early() -> None:
    """Start one grading zygote now, if none waits yet, for the next sandbox to take: a server
    calls this before it imports torch, so that both imports share its core from the start."""
    with _early_lock:
        if not _early:
            _early.append(spawn("grade"))


def take_early() -> tuple[subprocess.Popen, socket.socket] | None:
    """Return the zygote `start_early` started (once), or None."""
    with _early_lock:
        return _early.pop() if _early else None
