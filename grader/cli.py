"""Command line: `python -m grader check|validate|list|doctor|download-names`."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

import data
from grader import render
from grader.engine import Grader
from grader.exercises import discover
from grader.sandbox import Sandbox
from grader.sandbox.clean import inert
from grader.validate import validate


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    args = _parser().parse_args(argv)
    try:
        return args.func(args)
    except data.DatasetError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    """Build the argument parser."""
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__)
    sub = parser.add_subparsers(required=True, metavar="command")
    check = sub.add_parser("check", help="grade an answer, or a whole backward pass")
    check.add_argument("file", type=Path, help="your code (a .py file), or - for stdin")
    check.add_argument("--exercise", help="grade one exercise (default: the whole pass)")
    check.add_argument("--data", help="default, names, or a word-list file (txt or csv)")
    check.add_argument("--json", action="store_true", help="print the result as JSON")
    check.add_argument("--cache", type=Path, help="where names.txt is (default: var/cache)")
    check.set_defaults(func=_check)
    val = sub.add_parser("validate", help="prove exercise files")
    val.add_argument("path", nargs="?", type=Path, help="an exercises folder, scenario or file")
    val.set_defaults(func=_validate)
    lst = sub.add_parser("list", help="list the exercises")
    lst.set_defaults(func=_list)
    doctor = sub.add_parser("doctor", help="show which sandbox layers this machine provides")
    doctor.set_defaults(func=_doctor)
    fetch = sub.add_parser("download-names", help="download the lecture's names.txt, verified")
    fetch.add_argument("--url", default=data.MAKEMORE_URL, help="where to download it from")
    fetch.add_argument("--cache", type=Path, help="where to keep it (default: var/cache)")
    fetch.set_defaults(func=_download_names)
    return parser


def _read(path: Path) -> str:
    """Read the learner's code from a file or stdin."""
    if str(path) == "-":
        return sys.stdin.read()
    return path.read_text(encoding="utf-8", errors="replace")


def _check(args) -> int:
    """Grade one exercise or a whole pass; exit 0 only when everything graded is solved."""
    dataset = data.load_dataset(args.data, cache_dir=args.cache)
    code = _read(args.file)
    with contextlib.closing(Sandbox(slots=1)) as sandbox:
        grader = Grader(dataset, sandbox=sandbox)
        if args.exercise:
            result = grader.grade(args.exercise, code)
            text = render.result(result)
        else:
            result = grader.grade_pass(code)
            text = render.whole_pass(result)
    print(json.dumps(result.to_dict(), indent=2) if args.json else inert(text))
    return 0 if result.solved else 1


def _validate(args) -> int:
    """Prove exercise files; exit 0 only when every one is sound."""
    with contextlib.closing(Sandbox(slots=1)) as sandbox:
        count, findings = validate(args.path, sandbox=sandbox)
    for finding in findings:
        print(f"{finding.where}: {finding.problem}")
    print(f"{count} exercises checked, {len(findings)} problems.")
    return 0 if not findings else 1


def _list(args) -> int:
    """List exercises in teaching order, and files that could not be read."""
    catalog = discover()
    for exercise in catalog.exercises:
        print(f"{exercise.id:18} {exercise.scenario.slug:14} {exercise.title}")
    for error in catalog.errors:
        print(f"error: {error}", file=sys.stderr)
    return 0 if not catalog.errors else 1


def _doctor(args) -> int:
    """Print each sandbox layer and whether this machine provides it.

    Exit 0 when every layer is on, 1 when some are unavailable (each is also logged), and 2
    when no sandbox starts at all, so that learner code could not be graded.
    """
    layers = _layers()
    for name, state in layers.items():
        print(f"{name:24} {state}")
    on = sum(state == "on" for state in layers.values())
    print(f"{on} of {len(layers)} layers on.")
    if "zygote" in layers:
        return 2
    return 0 if on == len(layers) else 1


def _layers() -> dict[str, str]:
    """Start a one-slot sandbox and return its layers, or why it cannot start."""
    try:
        sandbox = Sandbox(slots=1)
    except Exception as err:  # e.g. Python cannot be started: nothing would confine learner code
        return {"zygote": f"unavailable: {err}"}
    try:
        return sandbox.layers() or {"zygote": "unavailable: it did not start in time"}
    finally:
        sandbox.close()


def _download_names(args) -> int:
    """Download the lecture's names.txt once, verified, showing progress on stderr."""

    def progress(done: int, total: int | None) -> None:
        of = f" of {total:,}" if total else ""
        print(f"\r{done:,}{of} bytes", end="", file=sys.stderr, flush=True)

    path = data.download_names(args.url, cache_dir=args.cache, progress=progress)
    print(file=sys.stderr)
    print(f"names.txt is verified (SHA-256 {data.NAMES_SHA256[:12]}…) at {path}")
    return 0
