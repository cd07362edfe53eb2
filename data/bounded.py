"""Read an upload in a child process with a memory cap and a time limit.

The app's process is shared by every learner: whatever reading an upload costs (JSON, nbformat,
cleaning a word list) is paid in a child, `python -m <module>`, which caps its own address
space and CPU time before it reads anything, then reads one line of arguments (JSON) and the
upload from stdin and prints one JSON object. Nothing in an upload is executed; the child only
reads. Two children read at once; more wait their turn. A spare child per module is started
after each read, so the next upload does not wait for Python's imports.

    >>> outcome = run("data", raw, ["birds.csv", "Name"])
    >>> outcome.result if outcome.over is None else outcome.over  # the JSON, or "memory"/"time"
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEMORY_BYTES = 1 << 30  # the child's address space; Python, nbformat and numpy map ~200 MiB
CPU_SECONDS = 10
WALL_SECONDS = 60  # a busy machine stretches the CPU limit; the wall limit catches a stall
MAX_ARGS = 64 << 10
MEMORY_EXIT = 75  # the child's exit status when it ran out of its address space
OVER_TIME = (-signal.SIGXCPU, -signal.SIGKILL)
ENV = {"PATH": os.defpath, "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1"}
LIMITS = {"memory": f"{MEMORY_BYTES >> 20:,} MiB of memory", "time": f"{CPU_SECONDS} s"}
SLOTS = threading.BoundedSemaphore(2)
_spares: dict[str, subprocess.Popen] = {}
_spares_lock = threading.Lock()


class ReaderFailed(RuntimeError):
    """The child failed for a reason of its own (not a limit): a fault of the grader."""


@dataclass(frozen=True)
class Outcome:
    """What a child returned: its JSON object, or the limit it went over ("memory", "time")."""

    result: dict | None = None
    over: str | None = None


def run(module: str, raw: bytes, args: list[str]) -> Outcome:
    """Read `raw` with `python -m module` in a child; return its JSON or the limit it hit."""
    message = json.dumps(list(args)).encode() + b"\n" + raw
    with SLOTS:
        child = _take(module)
        try:
            out, err = child.communicate(message, timeout=WALL_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            return Outcome(over="time")
        finally:
            _spare(module)
    return _outcome(child.returncode, out, err)


def _take(module: str) -> subprocess.Popen:
    """Return the spare child of `module` if it is still waiting, else a new one."""
    with _spares_lock:
        child = _spares.pop(module, None)
    return child if child is not None and child.poll() is None else _start(module)


def _spare(module: str) -> None:
    """Start the next upload's child now, so that it has imported what it needs by then."""
    with _spares_lock:
        if module not in _spares:
            _spares[module] = _start(module)


def _start(module: str) -> subprocess.Popen:
    """Start `python -m module` from the project's folder, with a bare environment."""
    return subprocess.Popen(
        [sys.executable, "-m", module],
        cwd=ROOT,
        env={**ENV, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _outcome(code: int, out: bytes, err: bytes) -> Outcome:
    """Return the child's JSON, or which limit it went over; raise ReaderFailed otherwise."""
    if code in OVER_TIME:
        return Outcome(over="time")
    if code == MEMORY_EXIT:
        return Outcome(over="memory")
    try:
        result = json.loads(out) if code == 0 else None
    except ValueError:
        result = None
    if not isinstance(result, dict):
        tail = err.decode("utf-8", "replace")[-2000:]
        raise ReaderFailed(f"the upload reader exited with status {code}: {tail}")
    return Outcome(result=result)


def limit() -> None:
    """Cap this process's address space and CPU time (the child calls it before it imports)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))


def serve(read: Callable[[bytes, list[str]], dict], most: int) -> None:
    """Run in the child: read the arguments and at most `most` + 1 bytes from stdin, print
    read(raw, args)'s JSON object; exit MEMORY_EXIT if memory ran out. No input: exit."""
    header = sys.stdin.buffer.readline(MAX_ARGS)
    if not header:
        return  # the parent has gone: this was a spare
    raw = sys.stdin.buffer.read(most + 1)
    try:
        text = json.dumps(read(raw, json.loads(header)))
    except MemoryError:
        sys.exit(MEMORY_EXIT)
    sys.stdout.write(text)
    sys.stdout.flush()
