"""Turn a worker's exit report and result stream into a status and a learner-facing message.

Only what the parent and the zygote observed decides: the wall clock, the CPU time measured by
wait4, the signal that ended the worker, and the frames it sent. The exit code is the learner's
to choose (os._exit), so it never changes the verdict or its wording.
"""

from __future__ import annotations

import math
import signal

from .codec import Stream
from .records import CaseOutcome, Limits
from .worker import ALLOCATION_WORDS

INTERNAL = "The grader failed; this is not a problem with your code."
# RLIMIT_CPU fires on tick-sampled CPU time, while wait4 reports the scheduler's exact time: on
# a busy machine the worker is killed when wait4 says 0.84 of the limit (measured on 2 shared
# cores). A signal sent by the learner to itself earlier than this is a crash.
CPU_SHARE = 0.5
MESSAGES = {
    "ok": "",
    "cpu_limit": "Your code did not finish within {cpu} s. Check for an infinite loop.",
    "wall_limit": "Your code did not finish within {wall} s. Check for an infinite loop or a "
    "long sleep.",
    "memory_limit": "Your code ran out of memory (the limit is {memory} MB). Check for a very "
    "large tensor.",
    "output_limit": "Your code printed far too much (over {output} characters). Remove the "
    "prints inside loops.",
    "forbidden": "Your code tried something the grader does not allow: starting programs, "
    "opening network connections or signalling other processes.",
    "autograd": "Your code called autograd, which this exercise forbids. Write the gradient by "
    "hand.",
    "crashed": "Your code crashed the worker ({signal}).",
    "no_result": "Your code ended without handing back its variables.",
    "malformed": "Your code sent data the grader cannot read (it wrote to the grader's channel "
    "or broke the objects it returns). Assign your answer to a plain variable.",
    "exited": "Your code called exit(), so the grader could not read your variables. Remove the "
    "exit call.",
    "internal": INTERNAL,
    "busy": "The grader is busy; try again in a moment.",
}


def message(status: str, limits: Limits, sig: int | None = None) -> str:
    """Return the learner-facing sentence for a status ("autograd" is a kind of forbidden)."""
    return MESSAGES[status].format(
        cpu=max(1, math.ceil(limits.cpu_seconds)),
        wall=f"{limits.wall_seconds:g}",
        memory=limits.memory_bytes // 1024**2,
        output=16 * limits.output_bytes,
        signal=_signal_name(sig),
    )


def judge(report: dict, stream: Stream, limits: Limits) -> tuple[str, str, str]:
    """Return (status, message, log) for one finished run."""
    status = _status(report, stream, limits)
    sig = report.get("signal")
    log = f"exit={report} stream_error={stream.error} internal={stream.internal}"
    if status == "autograd":
        return "forbidden", message("autograd", limits), log
    return status, message(status, limits, sig), log


def reached_autograd(report: dict, stream: Stream, limits: Limits) -> bool:
    """Return whether a run was forbidden for reaching autograd."""
    return _status(report, stream, limits) == "autograd"


def _status(report: dict, stream: Stream, limits: Limits) -> str:
    """Decide the status, from the most to the least certain evidence."""
    sig, cpu, killed = report.get("signal"), report.get("cpu") or 0.0, report.get("killed")
    if report.get("error") or killed not in (None, "wall", "stop"):
        return "internal"
    if killed == "wall":
        return "wall_limit"
    if killed == "stop":  # it ended or spoiled its stream, then lingered: the signal is ours
        return _from_stream(stream)
    if sig in (signal.SIGXCPU, signal.SIGKILL) and cpu >= CPU_SHARE * limits.cpu_seconds:
        return "cpu_limit"
    if sig == signal.SIGSYS:
        return "forbidden"
    if sig is not None:
        return "crashed"
    return _from_stream(stream)


def _from_stream(stream: Stream) -> str:
    """Decide the status of a worker that ended without a signal, from its stream alone."""
    if stream.error is not None:
        return "malformed"
    if stream.done and stream.internal is None:
        return from_cases(stream.cases)
    if not stream.ready:
        return "internal"
    return "no_result"


def from_cases(cases: list[CaseOutcome]) -> str:
    """Return the status implied by the first case whose exception ended or starved the run."""
    for case in cases:
        error = case.error
        if error is None:
            continue
        if error.type == "SystemExit":
            return "exited"
        if error.type == "AutogradForbidden":
            return "autograd"
        if error.type == "OutputLimitExceeded":
            return "output_limit"
        if error.type == "MemoryError" or any(w in error.message for w in ALLOCATION_WORDS):
            return "memory_limit"
        if error.type == "PermissionError" and error.message.startswith("[Errno 1]"):
            return "forbidden"
    return "ok"


def _signal_name(sig: int | None) -> str:
    """Return a signal's name, e.g. SIGSEGV."""
    if sig is None:
        return "no signal"
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
