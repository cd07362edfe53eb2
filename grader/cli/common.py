"""What every verb shares: the exit codes, printing, the dataset, a sandbox started on demand."""

from __future__ import annotations

import contextlib
import json
import os
import sys

from grader.course import BadInput
from grader.gradebook import safetext

SOLVED, NOT_SOLVED, BAD_INPUT, GRADER_FAILED = 0, 1, 2, 3
CODES = "exit codes: 0 solved, 1 not solved, 2 bad input (nothing graded), 3 grader failed or busy"
BUSY = "the grader is busy; try again in a moment"
FAULT = "the grader failed; this is not a problem with your code"


def print_json(payload: dict) -> None:
    """Print one JSON document (ASCII only, DEL escaped too: nothing in it paints a terminal,
    and the neutraliser leaves it as it is)."""
    emit(json.dumps(payload, indent=2).replace("\x7f", "\\u007f"))


def emit(text: str) -> None:
    """Print a line on stdout, shown inert; a reader that has gone (`| head`) changes no exit
    code."""
    try:
        print(safetext.shown(text), flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def say(text: str) -> None:
    """Print a line on stderr, shown inert."""
    print(safetext.shown(text), file=sys.stderr, flush=True)


def load_dataset(args):
    """Load the dataset; a dataset that cannot be used is bad input."""
    import data

    try:
        return data.load_dataset(args.data, cache_dir=args.cache)
    except data.DatasetError as err:
        raise BadInput(str(err)) from None


_lent = None  # a running sandbox an embedding program lends to every verb (see `lend`)


@contextlib.contextmanager
def lend(sandbox):
    """Let the verbs run learner code on `sandbox`, started and closed by the caller, instead of
    starting (and stopping) one of their own per command: a program that calls `main` many
    times (the tests) pays for the sandbox's start once.

        >>> with lend(Sandbox()):
        ...     main(["check", "answer.py", "--exercise", "dprobs"])
    """
    global _lent
    before, _lent = _lent, sandbox
    try:
        yield sandbox
    finally:
        _lent = before


def start_sandbox(slots: int):
    """Return (a sandbox of `slots` slots, or the lent one; whether the caller must close it)."""
    if _lent is not None:
        return _lent, False
    from grader.sandbox import Sandbox

    return Sandbox(slots=slots), True


class OnDemand:
    """A one-slot sandbox started by the first run (or the lent one, which it never closes).

    An answer refused before it runs (it does not parse, it uses autograd) starts no zygote, so
    none is stopped half-started, which used to log a false "sandbox layer zygote: unavailable".
    """

    def __init__(self):
        self._sandbox = None
        self._owned = False

    def run(self, code, cases, limits=None, meanwhile=None):
        """Run code in the sandbox, starting it first if needed."""
        if self._sandbox is None:
            self._sandbox, self._owned = start_sandbox(1)
        return self._sandbox.run(code, cases, limits, meanwhile)

    def close(self) -> None:
        """Stop the sandbox if this command started it."""
        if self._sandbox is not None and self._owned:
            self._sandbox.close()
