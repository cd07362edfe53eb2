"""Run the command line inside the test's process: `main(argv)`, its stdout, stderr and code.

A `python -m grader` process imports torch (3.7 s of CPU, about 20 s of wall time on a loaded
2-core machine) and starts a sandbox of its own (its zygote imports torch again), so the CLI
tests spent most of their time starting interpreters. `in_process` calls the same `main` that
`python -m grader` calls, from the repository's root as `cli` does, with stdin, stdout and
stderr of its own and the CLI's own logging to that stderr; learner code still runs only in the
sandbox's workers: the process-wide sandbox, lent to the verbs (`grader.cli.common.lend`), so
the zygote starts once per test run. A few tests keep the real entry point (`cli`): exit codes
and output of the process itself, what it imports, and what its own sandbox writes at start-up.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Ran:
    """What a run of the command line left: its exit code and what it printed (as
    subprocess.CompletedProcess names them)."""

    returncode: int
    stdout: str
    stderr: str


def cli(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run `python -m grader args` in a process of its own, from the repository's root."""
    return from_root([sys.executable, "-m", "grader", *args], stdin)


def from_root(argv: list, stdin: str | None = None, env: dict | None = None):
    """Run argv from the repository's root, stdin closed unless given, no proxy variables
    unless `env` is given; return the completed process."""
    env = (
        env
        if env is not None
        else {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    )
    return subprocess.run(
        [str(a) for a in argv],
        cwd=ROOT,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def in_process(*args, stdin: str | None = None, lend: bool = True) -> Ran:
    """Run `main(args)` here, from the repository's root, on the process-wide sandbox (or,
    with lend=False, on a sandbox the command starts and stops itself, as `python -m grader`
    does); return its exit code and output."""
    from grader.cli import main
    from grader.cli.common import lend as lent
    from grader.sandbox import Limits, default_sandbox

    sandbox = default_sandbox() if lend else None
    if sandbox is not None:
        sandbox.layers()  # started, and its layers logged, before this run's stderr is read
    out, err = io.StringIO(), io.StringIO()
    given = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.chdir(ROOT))
        stack.enter_context(_swapped("stdin", given))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        stack.enter_context(_own_logging())
        if sandbox is not None:
            stack.enter_context(lent(sandbox))
            stack.enter_context(_limits(sandbox, Limits()))  # a new Sandbox's, as in a process
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit_:  # argparse's --help
            code = exit_.code if isinstance(exit_.code, int) else 0
    return Ran(code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _swapped(name: str, stream):
    """Put `stream` in sys.<name> for the block."""
    before = getattr(sys, name)
    setattr(sys, name, stream)
    try:
        yield
    finally:
        setattr(sys, name, before)


@contextlib.contextmanager
def _limits(sandbox, limits):
    """Give the sandbox these limits for the block (another test may have set its own)."""
    before, sandbox.limits = sandbox.limits, limits
    try:
        yield
    finally:
        sandbox.limits = before


@contextlib.contextmanager
def _own_logging():
    """Let the CLI set up its logging to (the redirected) stderr, as in a process of its own:
    pytest's handlers are set aside for the block, then put back; the grader's loggers are
    enabled for it (import-linter's dictConfig, run by tests/test_layers.py in this process,
    disables every logger that existed then)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    grader = [logging.getLogger(name) for name in _grader_loggers()]
    disabled = [logger.disabled for logger in grader]
    root.handlers = []
    for logger in grader:
        logger.disabled = False
    try:
        yield
    finally:
        root.handlers = handlers
        root.setLevel(level)
        for logger, was in zip(grader, disabled, strict=True):
            logger.disabled = was


def _grader_loggers() -> list[str]:
    """Return the names of the grader's loggers made so far."""
    made = logging.Logger.manager.loggerDict
    return [name for name in made if name == "grader" or name.startswith("grader.")]
