"""Command line: `python -m grader check|grade-batch|validate|new-course|list|doctor|...`.

Exit codes mean one thing each: 0 solved (everything sound), 1 not solved (problems found),
2 bad input (a file, flag, exercise or scenario that cannot be used; nothing was graded), 3 the
grader itself failed or is busy. Input is checked before torch and the dataset load, and torch
is imported only by the commands that need it, so `--help` and every refusal are quick.
"""

from __future__ import annotations

import argparse
import logging
import sys

from grader.cli import (
    check,
    doctor,
    download_names,
    grade_batch,
    language,
    listing,
    new_course,
    validate,
)
from grader.cli.common import BAD_INPUT, CODES, FAULT, GRADER_FAILED, print_json, say
from grader.course import BadInput
from grader.feedback import checkjson
from grader.gradebook import safetext

VERBS = (  # one module per verb: (name, module, help)
    ("check", check, "grade an answer, a whole backward pass or a notebook"),
    ("grade-batch", grade_batch, "grade a class into a gradebook"),
    ("validate", validate, "prove exercise files"),
    ("new-course", new_course, "make a new course folder from the template"),
    ("list", listing, "list the exercises"),
    ("doctor", doctor, "show which sandbox layers this machine provides"),
    ("language", language, "show the exercise language: its size, which exercises use what"),
    ("download-names", download_names, "download the lecture's names.txt"),
)


class Parser(argparse.ArgumentParser):
    """An argument parser whose mistakes are one `error:` line and exit code 2."""

    def _print_message(self, message: str, file=None) -> None:
        """Print help and usage inert, like every other line."""
        super()._print_message(safetext.shown(message) if message else message, file)

    def error(self, message: str):
        raise BadInput(f"{message} (see `{self.prog} --help`)")


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
    say(f"error: {message}")
    if argv[:1] == ["check"] and "--json" in argv:
        state = "bad_input" if code == BAD_INPUT else "grader_failed"
        print_json(checkjson.refusal(message, check.subject(args, argv), state))
    return code


def _parser() -> Parser:
    """Build the argument parser: one sub-command per verb, each adding its own arguments."""
    parser = Parser(prog="python -m grader", description=__doc__.split("\n")[0], epilog=CODES)
    common = Parser(add_help=False)
    common.add_argument("--traceback", action="store_true", help="show where the grader failed")
    sub = parser.add_subparsers(required=True, metavar="command")
    for name, verb, text in VERBS:
        child = sub.add_parser(name, help=text, description=text, epilog=CODES, parents=[common])
        child.set_defaults(func=verb.run)
        verb.add_arguments(child)
    return parser


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
