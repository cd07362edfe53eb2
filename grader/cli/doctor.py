"""`doctor`: which sandbox layers this machine provides, and the exercise language's check
(`language`: always on, in this process; `python -m grader language` says what it holds)."""

from __future__ import annotations

from grader.cli.common import GRADER_FAILED, NOT_SOLVED, SOLVED, emit


def add_arguments(parser) -> None:
    """`doctor` takes no arguments of its own."""


def run(args) -> int:
    """Print each sandbox layer and whether this machine provides it.

    Exit 0 when every layer is on, 1 when some are unavailable (each is also logged), and 3
    when no sandbox starts at all, so that learner code could not be graded.
    """
    layers = _layers() | {"language": "on"}  # checked in this process, before any run
    for name, state in layers.items():
        emit(f"{name:24} {state}")
    on = sum(state == "on" for state in layers.values())
    emit(f"{on} of {len(layers)} layers on.")
    if "zygote" in layers:
        return GRADER_FAILED
    return SOLVED if on == len(layers) else NOT_SOLVED


def _layers() -> dict[str, str]:
    """Start a one-slot sandbox and return its layers, or why it cannot start."""
    from grader.sandbox import Sandbox

    try:
        sandbox = Sandbox(slots=1)
    except Exception as err:  # e.g. Python cannot be started: nothing would confine learner code
        return {"zygote": f"unavailable: {err}"}
    try:
        return sandbox.layers() or {"zygote": "unavailable: it did not start in time"}
    finally:
        sandbox.close()
