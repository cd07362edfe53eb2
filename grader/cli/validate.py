"""`validate`: prove exercise files."""

from __future__ import annotations

import contextlib
from pathlib import Path

from grader.cli import inputs
from grader.cli.common import NOT_SOLVED, SOLVED, OnDemand, emit


def add_arguments(parser) -> None:
    """Add the arguments of `validate`."""
    parser.add_argument("path", nargs="?", type=Path, help="an exercises folder, scenario or file")


def run(args) -> int:
    """Prove exercise files; exit 0 only when every one is sound."""
    path = inputs.exercises_path(args.path)
    from grader.proving import validate

    with contextlib.closing(OnDemand()) as sandbox:
        count, findings = validate(path, sandbox=sandbox)
    for finding in findings:
        emit(f"{finding.where}: {finding.problem}")
    emit(f"{count} exercises checked, {len(findings)} problems.")
    return SOLVED if not findings else NOT_SOLVED
