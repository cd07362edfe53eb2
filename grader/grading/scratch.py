"""The scratchpad: run code against an exercise's lecture batch and see what it made.

Not graded and never compared with anything: the code runs in the sandbox on the same inputs as
an answer (the forward values in scope and the upstream gradients), and every tensor it assigns
comes back described by shape, dtype and a few values. No reference gradient is computed or
shown. Autograd is refused exactly as the grader refuses it.
"""

from __future__ import annotations

import ast
import time
from dataclasses import dataclass, replace

import torch

from grader.feedback import voice as feedback
from grader.grading import checks, pipeline
from grader.grading.cases import LECTURE, Prepared
from grader.grading.checks import Subject
from grader.grading.pipeline import EXERCISE
from grader.language import LANGUAGE, Language
from grader.result import LearnerError
from grader.sandbox import RunOutcome, Sandbox

MAX_NAMES = 20  # tensors described per run, the last assigned first kept
PREVIEW = 6  # values shown per tensor


@dataclass(frozen=True)
class ScratchRow:
    """One name the code assigned: a tensor's shape, dtype and first values, or why not."""

    name: str
    shape: tuple[int, ...] | None
    dtype: str
    preview: str
    note: str = ""


@dataclass(frozen=True)
class ScratchResult:
    """What a scratchpad run made; `message` says what happened in one sentence."""

    ok: bool
    message: str
    rows: tuple[ScratchRow, ...] = ()
    error: LearnerError | None = None
    stdout: str = ""
    elapsed: float = 0.0
    refused_construct: str = ""  # the first construct outside the exercise language, if refused
    refused_line: int | None = None  # its line
    hint: str = ""  # the refusal's hint (the nearest names in the language), if any


def assigned_names(tree: ast.Module) -> tuple[str, ...]:
    """Return the plain names the code assigns, in order of first assignment (at most 20)."""
    stores = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    names = dict.fromkeys(n.id for n in sorted(stores, key=lambda n: (n.lineno, n.col_offset)))
    return tuple(names)[-MAX_NAMES:]


def run_scratch(
    prepared: Prepared, sandbox: Sandbox, code: str, language: Language = LANGUAGE
) -> ScratchResult:
    """Run the code on the lecture batch's inputs and describe every tensor it assigned."""
    start = time.perf_counter()
    source = checks.screen(code, language)  # the same screening, and words, as every grading path
    if source.refused:
        failed = pipeline.failure(pipeline.run(EXERCISE, Subject("", source), pipeline.RUN))
        refused = {"refused_construct": failed.construct, "refused_line": failed.line}
        return ScratchResult(False, failed.message, hint=failed.hint, **refused)
    names = assigned_names(source.tree)
    case = replace(prepared.case(LECTURE), outputs=names)
    outcome = sandbox.run(code, [case])
    result = _describe(outcome, names)
    return replace(result, elapsed=time.perf_counter() - start)


def _describe(outcome: RunOutcome, names: tuple[str, ...]) -> ScratchResult:
    """Turn the sandbox's outcome into rows, the message and the learner's exception."""
    if outcome.status != "ok" or not outcome.cases:
        return ScratchResult(False, outcome.message or feedback.GRADER_FAULT)
    case = outcome.cases[0]
    rows = tuple(_row(name, case.returned.get(name)) for name in names)
    rows = tuple(r for r in rows if r is not None)
    if case.error is not None:
        err = case.error
        return ScratchResult(False, feedback.raised(err.type, err.line), rows, err, case.stdout)
    return ScratchResult(True, feedback.scratch_ran(len(rows)), rows, stdout=case.stdout)


def _row(name: str, returned) -> ScratchRow | None:
    """Describe one assigned name; None when the code never set it."""
    if returned is None:
        return None
    t = returned.tensor
    if t is None:
        if returned.problem in ("not defined", "is not defined"):
            return None
        return ScratchRow(name, None, "", "", returned.problem or "")
    return ScratchRow(name, tuple(t.shape), str(t.dtype).removeprefix("torch."), preview(t))


def preview(t: torch.Tensor) -> str:
    """Return the first few values of a tensor, and its range when it has more."""
    flat = t.detach().reshape(-1)
    if not flat.numel():
        return "(empty)"
    shown = ", ".join(_number(float(v)) for v in flat[:PREVIEW])
    more = " …" if flat.numel() > PREVIEW else ""
    if not t.is_floating_point() or flat.numel() <= PREVIEW:
        return f"[{shown}{more}]"
    finite = flat[torch.isfinite(flat)]
    if not finite.numel():
        return f"[{shown}{more}]"
    low, high = _number(float(finite.min())), _number(float(finite.max()))
    return f"[{shown}{more}]  min {low}, max {high}"


def _number(value: float) -> str:
    """Format one value compactly: 0.0312, -1.2e-09, 3."""
    return f"{value:.4g}"
