"""Command line: `python -m grader check|grade-batch|validate|list|doctor|download-names`.

Exit codes mean one thing each: 0 solved (everything sound), 1 not solved (problems found),
2 bad input (a file, flag, exercise or scenario that cannot be used; nothing was graded), 3 the
grader itself failed or is busy. Input is checked before torch and the dataset load, and torch
is imported only by the commands that need it, so `--help` and every refusal are quick.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from pathlib import Path

from grader import checkjson, inputs, safetext
from grader.exercises import discover
from grader.inputs import BadInput

SOLVED, NOT_SOLVED, BAD_INPUT, GRADER_FAILED = 0, 1, 2, 3
CODES = "exit codes: 0 solved, 1 not solved, 2 bad input (nothing graded), 3 grader failed or busy"
BUSY = "the grader is busy; try again in a moment"
FAULT = "the grader failed; this is not a problem with your code"


class Parser(argparse.ArgumentParser):
    """An argument parser whose mistakes are one `error:` line and exit code 2."""

    def error(self, message: str):
        raise BadInput(f"{message} (see `{self.prog} --help`)")

    def _print_message(self, message: str, file=None) -> None:
        """Print help and usage inert, like every other line."""
        super()._print_message(safetext.shown(message) if message else message, file)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = None
    try:
        args = _parser().parse_args(argv)
        _log_to_stderr(args.traceback)
        return args.func(args)
    except BadInput as err:
        return _fail(str(err), BAD_INPUT, argv, args)
    except Exception as err:  # the grader's own fault: one line, the traceback on request
        if getattr(args, "traceback", False):
            logging.getLogger("grader").exception("the grader failed")
        detail = f"{FAULT} ({type(err).__name__}: {err}); --traceback shows where"
        return _fail(detail, GRADER_FAILED, argv, args)


def _fail(message: str, code: int, argv: list[str], args) -> int:
    """Print one `error:` line (and, for `check --json`, the JSON refusal); return code."""
    _say(f"error: {message}")
    if argv[:1] == ["check"] and "--json" in argv:
        state = "bad_input" if code == BAD_INPUT else "grader_failed"
        _print_json(checkjson.refusal(message, _subject(args, argv), state))
    return code


def _parser() -> Parser:
    """Build the argument parser."""
    parser = Parser(prog="python -m grader", description=__doc__.split("\n")[0], epilog=CODES)
    common = Parser(add_help=False)
    common.add_argument("--traceback", action="store_true", help="show where the grader failed")
    sub = parser.add_subparsers(required=True, metavar="command")

    def command(name: str, func, text: str) -> Parser:
        child = sub.add_parser(name, help=text, description=text, epilog=CODES, parents=[common])
        child.set_defaults(func=func)
        return child

    _check_arguments(
        command("check", _check, "grade an answer, a whole backward pass or a notebook")
    )
    _batch_arguments(command("grade-batch", _grade_batch, "grade a class into a gradebook"))
    val = command("validate", _validate, "prove exercise files")
    val.add_argument("path", nargs="?", type=Path, help="an exercises folder, scenario or file")
    listing = command("list", _list, "list the exercises")
    listing.add_argument("folder", nargs="?", type=Path, help="an exercises folder")
    command("doctor", _doctor, "show which sandbox layers this machine provides")
    fetch = command("download-names", _download_names, "download the lecture's names.txt")
    fetch.add_argument("--url", help="where to download it from (default: makemore's GitHub)")
    fetch.add_argument("--cache", type=Path, help="where to keep it (default: var/cache)")
    return parser


def _check_arguments(check: Parser) -> None:
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


def _log_to_stderr(traceback: bool) -> None:
    """Show the grader's warnings on stderr as bare lines; tracebacks only when asked."""
    root = logging.getLogger()
    if root.handlers:  # someone (a test runner, an embedding program) already chose
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Inert("%(message)s") if traceback else _Brief())
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


class _Inert(logging.Formatter):
    """Format a log record, traceback included, shown inert."""

    def format(self, record: logging.LogRecord) -> str:
        return safetext.shown(super().format(record))


class _Brief(logging.Formatter):
    """Format a log record as its message alone, without a traceback, shown inert."""

    def format(self, record: logging.LogRecord) -> str:
        return safetext.shown(record.getMessage())


def _check(args) -> int:
    """Grade one exercise or a whole pass; the exit code says solved, not solved or failed."""
    catalog = discover(*inputs.course_folder(args.exercises))
    if inputs.is_notebook(args.file):
        return _check_notebook(args, catalog)
    target = inputs.exercise(catalog, args.exercise) if args.exercise else None
    scenario = target.scenario if target else inputs.scenario(catalog, args.scenario)
    inputs.data_path(args.data)
    code = inputs.read_answer(args.file)
    from grader.engine import Grader
    from grader.runnable import require_runnable

    require_runnable([scenario])

    dataset = _dataset(args) if scenario.uses_dataset or args.data else None
    with contextlib.closing(_OnDemand()) as sandbox:
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
    from grader import notebook, render
    from grader.engine import Grader

    dataset = _dataset(args)
    with contextlib.closing(_OnDemand()) as sandbox:
        grader = Grader(dataset, catalog, sandbox)
        result = notebook.grade(found, grader, notebook.exercise4(dataset, sandbox, catalog))
    subject = _subject(args, [], result.scenario)
    return _print(checkjson.notebook(result, subject), args, lambda: render.notebook(result))


def _show(result, args, scenario) -> int:
    """Print a result as text or JSON; return its exit code."""
    from grader import render

    subject = _subject(args, [], scenario.slug)
    if args.exercise:
        payload = checkjson.exercise(result, subject)
    else:
        payload = checkjson.whole_pass(result, subject, len(scenario.whole_pass))
    text = render.result if args.exercise else render.whole_pass
    return _print(payload, args, lambda: text(result))


def _print(payload: dict, args, text) -> int:
    """Print the JSON payload, or `text()`; say so on stderr if the grader failed or is busy."""
    if args.json:
        _print_json(payload)
    else:
        _emit(text())
    if payload["status"] in ("grader_failed", "busy"):
        _say(f"error: {FAULT if payload['status'] == 'grader_failed' else BUSY}")
    return payload["exit_code"]


def _subject(args, argv: list[str], scenario: str | None = None) -> checkjson.Subject:
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


def _print_json(payload: dict) -> None:
    """Print one JSON document (ASCII only, DEL escaped too: nothing in it paints a terminal,
    and the neutraliser leaves it as it is)."""
    _emit(json.dumps(payload, indent=2).replace("\x7f", "\\u007f"))


def _emit(text: str) -> None:
    """Print a line on stdout, shown inert; a reader that has gone (`| head`) changes no exit
    code."""
    try:
        print(safetext.shown(text), flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _say(text: str) -> None:
    """Print a line on stderr, shown inert."""
    print(safetext.shown(text), file=sys.stderr, flush=True)


def _dataset(args):
    """Load the dataset; a dataset that cannot be used is bad input."""
    import data

    try:
        return data.load_dataset(args.data, cache_dir=args.cache)
    except data.DatasetError as err:
        raise BadInput(str(err)) from None


class _OnDemand:
    """A one-slot sandbox started by the first run.

    An answer refused before it runs (it does not parse, it uses autograd) starts no zygote, so
    none is stopped half-started, which used to log a false "sandbox layer zygote: unavailable".
    """

    def __init__(self):
        self._sandbox = None

    def run(self, code, cases, limits=None):
        """Run code in the sandbox, starting it first if needed."""
        if self._sandbox is None:
            from grader.sandbox import Sandbox

            self._sandbox = Sandbox(slots=1)
        return self._sandbox.run(code, cases, limits)

    def close(self) -> None:
        """Stop the sandbox if it was started."""
        if self._sandbox is not None:
            self._sandbox.close()


def _batch_arguments(parser: Parser) -> None:
    """Add the arguments of `grade-batch` (grader/batch.py)."""
    from grader import batch

    batch.add_arguments(parser)


def _grade_batch(args) -> int:
    """Grade a class and write the gradebook; 3 if the grader failed on an item, else 0."""
    from grader import batch

    catalog = discover(*inputs.course_folder(args.exercises))
    items, refused = batch.collect(
        args.folder, catalog, inputs.scenario(catalog, args.scenario).slug
    )
    from grader.runnable import require_runnable  # runs the scenarios: torch, after the inputs

    require_runnable(batch.scenarios_of(items, catalog))
    rows, paths, seconds = batch.run(catalog, _dataset(args), items, refused, args)
    for line in batch.summary(rows, paths, seconds):
        _emit(line)
    return GRADER_FAILED if any(r.status == "grader_failed" for r in rows) else SOLVED


def _validate(args) -> int:
    """Prove exercise files; exit 0 only when every one is sound."""
    path = inputs.exercises_path(args.path)
    from grader.validate import validate

    with contextlib.closing(_OnDemand()) as sandbox:
        count, findings = validate(path, sandbox=sandbox)
    for finding in findings:
        _emit(f"{finding.where}: {finding.problem}")
    _emit(f"{count} exercises checked, {len(findings)} problems.")
    return SOLVED if not findings else NOT_SOLVED


def _list(args) -> int:
    """List exercises in teaching order, then the files that could not be read and the scenarios
    that fail to run (withdrawn with their exercises, as in the app)."""
    from grader.runnable import runnable

    catalog = runnable(discover(*inputs.course_folder(args.folder)))
    for exercise in catalog.exercises:
        _emit(f"{exercise.id:18} {exercise.scenario.slug:14} {exercise.title}")
    for error in catalog.errors:
        _say(f"error: {error}")
    return SOLVED if not catalog.errors else NOT_SOLVED


def _doctor(args) -> int:
    """Print each sandbox layer and whether this machine provides it.

    Exit 0 when every layer is on, 1 when some are unavailable (each is also logged), and 3
    when no sandbox starts at all, so that learner code could not be graded.
    """
    layers = _layers()
    for name, state in layers.items():
        _emit(f"{name:24} {state}")
    on = sum(state == "on" for state in layers.values())
    _emit(f"{on} of {len(layers)} layers on.")
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


def _download_names(args) -> int:
    """Download the lecture's names.txt once, verified, showing progress on stderr."""
    import data

    def progress(done: int, total: int | None) -> None:
        of = f" of {total:,}" if total else ""
        print("\r" + safetext.shown(f"{done:,}{of} bytes"), end="", file=sys.stderr, flush=True)

    try:
        path = data.download_names(
            args.url or data.MAKEMORE_URL, cache_dir=args.cache, progress=progress
        )
    except data.DatasetError as err:
        print(file=sys.stderr)
        raise BadInput(str(err)) from None
    print(file=sys.stderr)
    _emit(f"names.txt is verified (SHA-256 {data.NAMES_SHA256[:12]}…) at {path}")
    return SOLVED
