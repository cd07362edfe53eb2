"""`check`: grade an answer, a whole backward pass or a notebook; print text or JSON."""

from __future__ import annotations

import contextlib
from pathlib import Path

from grader.cli import inputs
from grader.cli.common import BUSY, FAULT, OnDemand, emit, load_dataset, print_json, say
from grader.course import BadInput, discover
from grader.feedback import checkjson


def add_arguments(check) -> None:
    """Add the arguments of `check`."""
    check.add_argument(
        "file", type=Path, help="your code (a .py file or a .ipynb notebook), or - for stdin"
    )
    what = check.add_mutually_exclusive_group()
    what.add_argument("--exercise", help="grade one exercise (default: a whole pass)")
    what.add_argument("--scenario", help="the scenario whose whole pass to grade (default: first)")
    check.add_argument("--data", help="default, names, or a word-list file (txt or csv)")
    check.add_argument("--cache", type=Path, help="where names.txt is (default: var/cache)")
    check.add_argument("--json", action="store_true", help="print docs/check-json.md's JSON")
    check.add_argument("--learner", help="a name to carry in the JSON (for a gradebook)")
    check.add_argument("--exercises", type=Path, help="another exercises folder (a course)")


def run(args) -> int:
    """Grade one exercise or a whole pass; the exit code says solved, not solved or failed."""
    catalog = discover(*inputs.course_folder(args.exercises))
    if inputs.is_notebook(args.file):
        return _check_notebook(args, catalog)
    target = inputs.exercise(catalog, args.exercise) if args.exercise else None
    scenario = target.scenario if target else inputs.scenario(catalog, args.scenario)
    inputs.data_path(args.data)
    code = inputs.read_answer(args.file)
    from grader.grading import Grader
    from grader.proving import require_runnable

    require_runnable([scenario])

    dataset = load_dataset(args) if scenario.uses_dataset or args.data else None
    with contextlib.closing(OnDemand()) as sandbox:
        grader = Grader(dataset, catalog, sandbox)
        if target:
            return _show(grader.grade(target.id, code), args, scenario)
        return _show(grader.grade_pass(code, scenario.slug), args, scenario)


def _check_notebook(args, catalog) -> int:
    """Grade every exercise found in a Jupyter notebook of the lecture (read before torch)."""
    if args.exercise or args.scenario:
        raise BadInput("a notebook is graded whole: leave out --exercise and --scenario")
    inputs.data_path(args.data)
    found = inputs.read_notebook(args.file)
    from grader import notebook
    from grader.feedback import render
    from grader.grading import Grader

    dataset = load_dataset(args)
    with contextlib.closing(OnDemand()) as sandbox:
        grader = Grader(dataset, catalog, sandbox)
        result = notebook.grade(found, grader, notebook.exercise4(dataset, sandbox, catalog))
    asked = subject(args, [], result.scenario)
    return _print(checkjson.notebook(result, asked), args, lambda: render.notebook(result))


def _show(result, args, scenario) -> int:
    """Print a result as text or JSON; return its exit code."""
    from grader.feedback import render

    asked = subject(args, [], scenario.slug)
    if args.exercise:
        payload = checkjson.exercise(result, asked)
    else:
        payload = checkjson.whole_pass(result, asked, len(scenario.whole_pass))
    text = render.result if args.exercise else render.whole_pass
    return _print(payload, args, lambda: text(result))


def _print(payload: dict, args, text) -> int:
    """Print the JSON payload, or `text()`; say so on stderr if the grader failed or is busy."""
    if args.json:
        print_json(payload)
    else:
        emit(text())
    if payload["status"] in ("grader_failed", "busy"):
        say(f"error: {FAULT if payload['status'] == 'grader_failed' else BUSY}")
    return payload["exit_code"]


def subject(args, argv: list[str], scenario: str | None = None) -> checkjson.Subject:
    """Return what `check` was asked to grade, from parsed args (or what is known of them)."""
    exercise = getattr(args, "exercise", None) or _flag(argv, "--exercise")
    file = getattr(args, "file", None)
    named = [str(file)] if file is not None else argv
    notebook = any(a.lower().endswith(".ipynb") for a in named)
    return checkjson.Subject(
        kind="notebook" if notebook else "exercise" if exercise else "whole_pass",
        exercise=exercise,
        scenario=scenario or getattr(args, "scenario", None) or _flag(argv, "--scenario"),
        file=None if file is None else str(file),
        learner=getattr(args, "learner", None) or _flag(argv, "--learner"),
    )


def _flag(argv: list[str], name: str) -> str | None:
    """Return the value given to a flag in raw arguments (`--name value` or `--name=value`)."""
    for i, arg in enumerate(argv):
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
    return None
