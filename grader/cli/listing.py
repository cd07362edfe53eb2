"""`list`: the exercises in teaching order, and what could not be read or run."""

from __future__ import annotations

from pathlib import Path

from grader.cli import inputs
from grader.cli.common import NOT_SOLVED, SOLVED, emit, say
from grader.course import discover


def add_arguments(parser) -> None:
    """Add the arguments of `list`."""
    parser.add_argument("folder", nargs="?", type=Path, help="an exercises folder")


def run(args) -> int:
    """List exercises in teaching order, then the files that could not be read and the scenarios
    that fail to run (withdrawn with their exercises, as in the app)."""
    from grader.proving import runnable

    catalog = runnable(discover(*inputs.course_folder(args.folder)))
    for exercise in catalog.exercises:
        emit(f"{exercise.id:18} {exercise.scenario.slug:14} {exercise.title}")
    for error in catalog.errors:
        say(f"error: {error}")
    return SOLVED if not catalog.errors else NOT_SOLVED
