"""Grade a whole backward pass: the lecture's Exercise 1 cell, every gradient at once."""

from __future__ import annotations

import torch

from grader import diagnose, feedback
from grader.cases import ALT, LECTURE, Runs
from grader.result import FAIL, PASS, CodeError, PassResult, PassRow
from grader.sandbox import Case, RunOutcome, Sandbox
from grader.scenario import Scenario


def pass_cases(scenario: Scenario, runs: Runs) -> tuple[Case, ...]:
    """Return the lecture batch and another configuration, with every forward value in scope."""
    outputs = tuple(f"d{name}" for name in scenario.whole_pass)
    cases = []
    for config in (LECTURE, ALT):
        run = runs.get(scenario, config)
        cases.append(Case(config, dict(run.values), dict(run.sizes), outputs))
    return tuple(cases)


def header(scenario: Scenario, runs: Runs) -> dict:
    """Return the dataset figures, parameter count and batch loss, as plain data."""
    run = runs.get(scenario, LECTURE)
    info = dict(runs.dataset.summary()) if scenario.uses_dataset and runs.dataset else {}
    info["scenario"] = scenario.title
    info["parameters"] = sum(run.values[p].numel() for p in scenario.params)
    info["loss"] = float(run.values[scenario.output])
    info["sizes"] = dict(run.sizes)
    return info


def grade_pass(scenario: Scenario, runs: Runs, sandbox: Sandbox, code: str) -> PassResult:
    """Run the learner's whole pass once per configuration and compare every gradient."""
    info = header(scenario, runs)
    outcome = sandbox.run(code, pass_cases(scenario, runs))
    failure = _failure(outcome)
    if failure is not None:
        message, error = failure
        busy = outcome.status == "busy"
        return PassResult(False, info, (), None, message, error, _stdout(outcome), busy=busy)
    rows = tuple(_row(scenario, runs, outcome, name) for name in scenario.whole_pass)
    root = next((r.name for r in rows if r.status == FAIL), None)
    sizes_message = _sizes(scenario, runs, outcome) if root is None else ""
    solved = root is None and not sizes_message
    if root:
        message = feedback.whole_pass_root(root)
    else:
        message = sizes_message or feedback.whole_pass_solved(len(rows))
    return PassResult(
        solved,
        info,
        rows,
        root,
        message,
        stdout=_stdout(outcome),
        sizes_message=sizes_message,
    )


def _failure(outcome: RunOutcome) -> tuple[str, CodeError | None] | None:
    """Return the message (and exception) when the code did not run on the lecture batch."""
    if outcome.status != "ok":
        return outcome.message, None
    err = outcome.cases[0].error
    if err is None:
        return None
    return feedback.raised(err.type, err.line), CodeError(
        err.type, err.message, err.line, err.traceback
    )


def _stdout(outcome: RunOutcome) -> str:
    """Return everything the code printed."""
    return "".join(c.stdout for c in outcome.cases)


def _row(scenario: Scenario, runs: Runs, outcome: RunOutcome, target: str) -> PassRow:
    """Compare one gradient of the whole pass with autograd, on the lecture batch."""
    name = f"d{target}"
    expected = runs.get(scenario, LECTURE).grads[target]
    returned = outcome.cases[0].returned.get(name)
    got = returned.tensor if returned else None
    if got is None:
        problem = returned.problem if returned else "is not defined"
        return PassRow(name, FAIL, feedback.not_tensor(name, problem))
    if got.shape != expected.shape:
        hint = diagnose.shape_hint(got.to(expected.dtype), expected)
        message = feedback.wrong_shape(name, got.shape, expected.shape)
        return PassRow(name, FAIL, f"{message} {hint}".strip())
    cmp = diagnose.compare(name, got.to(expected.dtype), expected)
    if cmp.approx:
        return PassRow(name, PASS, feedback.looks_good(name, cmp.maxdiff), cmp)
    index = diagnose.worst_index(got, expected)
    return PassRow(
        name, FAIL, feedback.inaccurate(name, cmp.maxdiff, index, diagnose.TOLERANCE), cmp
    )


def _sizes(scenario: Scenario, runs: Runs, outcome: RunOutcome) -> str:
    """Return a message when the pass fails in the other configuration, else ''."""
    alt_run = runs.get(scenario, ALT)
    case = outcome.cases[1]
    if case.error is not None:
        return f"{feedback.raised(case.error.type, case.error.line)} {feedback.hint_hard_coded()}"
    for target in scenario.whole_pass:
        returned = case.returned.get(f"d{target}")
        got = returned.tensor if returned else None
        expected = alt_run.grads[target]
        if got is None or got.shape != expected.shape or not _close(got, expected):
            sizes = ", ".join(f"{k}={v}" for k, v in alt_run.sizes.items())
            return f"`d{target}` is wrong with {sizes}. {_why_only_here(got, expected)}"
    return ""


def _why_only_here(got: torch.Tensor | None, expected: torch.Tensor) -> str:
    """Return the hint for a gradient right on the lecture batch only: zeros, or sizes."""
    if diagnose.zero_by_coincidence(got, expected):
        return feedback.hint_zero_by_coincidence(float(expected.abs().max()))
    return feedback.hint_hard_coded()


def _close(got: torch.Tensor, expected: torch.Tensor) -> bool:
    """Return whether got matches expected to the lecture's tolerance."""
    return diagnose.compare("", got.to(expected.dtype), expected).approx
