"""The six checks, cheapest first, one function each (see docs/ARCHITECTURE.md)."""

from __future__ import annotations

import torch

from grader import diagnose, feedback
from grader.cases import ALT, Prepared, scope_names
from grader.result import FAIL, INCONCLUSIVE, PASS, SKIPPED, Check, GradRow, LearnerError
from grader.rules import Problem
from grader.sandbox import CaseOutcome, RunOutcome

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_runs(outcome: RunOutcome, prepared: Prepared) -> tuple[Check, LearnerError | None]:
    """Check 1: the code ran every case without an exception and within the limits."""
    if outcome.status != "ok":
        return Check("runs", FAIL, outcome.message), None
    for case in outcome.cases:
        if case.error is not None and case.name != ALT:
            return _raised(case, prepared)
    return Check("runs", PASS, feedback.runs_ok()), None


def _raised(case: CaseOutcome, prepared: Prepared) -> tuple[Check, LearnerError]:
    """Describe the learner's exception, with the names they can use after a NameError."""
    err = error = case.error
    hint = diagnose.error_hint(err.type, err.message, prepared.runs[case.name].sizes)
    if err.type == "NameError":
        missing = err.message.split("'")[1] if "'" in err.message else "?"
        hint = feedback.hint_unknown_name(missing, scope_names(prepared.case(case.name)))
    return Check("runs", FAIL, feedback.raised(err.type, err.line), hint), error


def check_rules(problem: Problem | None, outcome: RunOutcome | None) -> Check:
    """Check 2: no autograd, found in the source or caught while running."""
    if problem is not None:
        message = feedback.uses_autograd(problem.what, problem.line, problem.dynamic)
        return Check("rules", FAIL, message, feedback.hint_autograd())
    if outcome is not None and outcome.status == "forbidden" and "autograd" in outcome.message:
        return Check("rules", FAIL, outcome.message, feedback.hint_autograd())
    return Check("rules", PASS, feedback.rules_ok())


def check_form(
    name: str,
    case: CaseOutcome,
    expected: torch.Tensor,
    sizes: dict | None = None,
    upstream: tuple[tuple[int, ...], ...] = (),
    exact_dtype: bool = False,
    declared: str = "",
) -> Check:
    """Check 3: defined, a plain float tensor (of the expected dtype when the exercise sets
    one), the exact shape, finite."""
    returned = case.returned.get(name)
    if returned is None or returned.tensor is None:
        problem = returned.problem if returned else "is not defined"
        if problem in ("not defined", "is not defined"):
            return Check("form", FAIL, feedback.not_defined(name))
        return Check("form", FAIL, feedback.not_tensor(name, problem, expected.shape))
    got = returned.tensor
    if got.dtype not in FLOAT_DTYPES or (exact_dtype and got.dtype != expected.dtype):
        return Check("form", FAIL, feedback.wrong_dtype(name, _dtype(got), _dtype(expected)))
    if got.shape != expected.shape:
        hint = diagnose.shape_hint(got.to(expected.dtype), expected, sizes, upstream, declared)
        shapes = (
            diagnose.named(got.shape, sizes or {}),
            diagnose.named(expected.shape, sizes or {}, declared),
        )
        message = feedback.wrong_shape(name, got.shape, expected.shape, *shapes)
        return Check("form", FAIL, message, hint)
    bad = ~torch.isfinite(got)
    if bool(bad.any()):
        index = tuple(int(i) for i in bad.nonzero()[0])
        message = feedback.not_finite(name, int(bad.sum()), index)
        return Check("form", FAIL, message, feedback.hint_nonfinite())
    return Check("form", PASS, feedback.form_ok(name, got.shape))


def _dtype(t: torch.Tensor) -> str:
    """Name a dtype the way torch prints it."""
    return str(t.dtype).replace("torch.", "torch.")


def answer(outcome: RunOutcome, case: str, name: str) -> torch.Tensor | None:
    """Return the tensor the learner produced for one case, if any."""
    for c in outcome.cases:
        if c.name == case and name in c.returned:
            return c.returned[name].tensor
    return None


def check_lecture(
    name: str,
    got: torch.Tensor,
    expected: torch.Tensor,
    hint: str,
    noise: float = 0.0,
    base: tuple[float, float] | None = None,
) -> Check:
    """Check 4: the lecture batch with autograd's upstream gradients (the cmp line).

    Where the true gradient is no larger than float noise (`noise`), the lecture batch cannot
    tell a right answer from a wrong one of the same size: the check is inconclusive and the
    random upstream gradients decide.
    """
    cmp = diagnose.compare(name, got.to(expected.dtype), expected, base=base)
    if cmp.approx:
        message = feedback.exact(name) if cmp.exact else feedback.looks_good(name, cmp.maxdiff)
        return Check("lecture", PASS, message)
    if diagnose.below_noise(got.to(expected.dtype), expected, noise):
        largest = float(expected.abs().max()) if expected.numel() else 0.0
        return Check("lecture", INCONCLUSIVE, feedback.inconclusive(name, largest))
    index = diagnose.worst_index(got, expected)
    return Check(
        "lecture",
        FAIL,
        feedback.inaccurate(name, cmp.maxdiff, index, diagnose.tolerance(expected, base=base)),
        hint,
    )


def check_random(
    name: str,
    got: torch.Tensor | None,
    expected: torch.Tensor,
    hint: str,
    base: tuple[float, float] | None = None,
) -> Check:
    """Check 5: arbitrary upstream gradients, which defeat answers right by coincidence."""
    if got is None or got.shape != expected.shape:
        return Check(
            "random",
            FAIL,
            feedback.not_defined(name)
            if got is None
            else feedback.wrong_shape(name, got.shape, expected.shape),
        )
    cmp = diagnose.compare(name, got.to(expected.dtype), expected, drawn=True, base=base)
    if cmp.approx:
        return Check("random", PASS, feedback.random_ok(name))
    index = diagnose.worst_index(got, expected)
    tol = diagnose.tolerance(expected, drawn=True, base=base)
    message = feedback.inaccurate(name, cmp.maxdiff, index, tol)
    return Check("random", FAIL, message, hint or feedback.hint_random_only())


def check_sizes(
    name: str,
    case: CaseOutcome,
    expected: torch.Tensor,
    sizes: dict,
    base: tuple[float, float] | None = None,
) -> Check:
    """Check 6: another configuration in which every size differs."""
    hint = feedback.hint_hard_coded()
    if case.error is not None:
        return Check(
            "sizes", FAIL, feedback.raised_at(case.error.type, case.error.line, sizes), hint
        )
    returned = case.returned.get(name)
    got = returned.tensor if returned else None
    if got is None:
        return Check("sizes", FAIL, feedback.not_defined(name), hint)
    if got.shape != expected.shape:
        return Check("sizes", FAIL, feedback.wrong_shape(name, got.shape, expected.shape), hint)
    cmp = diagnose.compare(name, got.to(expected.dtype), expected, drawn=True, base=base)
    if cmp.approx:
        return Check("sizes", PASS, feedback.passes_sizes(name, sizes))
    index = diagnose.worst_index(got, expected)
    tol = diagnose.tolerance(expected, drawn=True, base=base)
    message = feedback.inaccurate(name, cmp.maxdiff, index, tol)
    return Check("sizes", FAIL, message, hint)


def skipped(kind: str, reason: str) -> Check:
    """Return a check that was not run because an earlier one failed."""
    return Check(kind, SKIPPED, feedback.skipped(reason))


def gradient_row(
    name: str,
    returned,
    expected: torch.Tensor,
    sizes: dict | None = None,
    *,
    label: str | None = None,
    shape: tuple[int, ...] | None = None,
    n: int | None = None,
) -> GradRow:
    """Compare one returned gradient with autograd's: defined, exact shape, then values.

    The one row builder of the whole pass and of Exercise 4's gradient check: `label` names the
    cmp line (default `name`), `shape` is shown beside the row, `n` asks for a value diagnosis.
    """
    got = returned.tensor if returned else None
    if got is None:
        problem = returned.problem if returned else "is not defined"
        return GradRow(name, FAIL, feedback.not_tensor(name, problem), shape=shape)
    got = got.to(expected.dtype)
    if got.shape != expected.shape:
        hint = diagnose.shape_hint(got, expected, sizes)
        message = feedback.wrong_shape(name, got.shape, expected.shape)
        return GradRow(name, FAIL, f"{message} {hint}".strip(), shape=shape)
    cmp = diagnose.compare(label or name, got, expected)
    if cmp.approx:
        return GradRow(name, PASS, feedback.looks_good(name, cmp.maxdiff), cmp, shape)
    index = diagnose.worst_index(got, expected)
    message = feedback.inaccurate(name, cmp.maxdiff, index, diagnose.TOLERANCE)
    hint = diagnose.value_hint(got, expected, [], [], name[1:], n) if n else ""
    return GradRow(name, FAIL, f"{message} {hint}".strip(), cmp, shape)
