"""Grade a whole backward pass: the lecture's Exercise 1 cell, every gradient at once."""

from __future__ import annotations

import ast
from dataclasses import dataclass

import torch

from grader.course import Scenario
from grader.feedback import detectors, diagnose
from grader.feedback import voice as feedback
from grader.grading import checks, pipeline
from grader.grading.cases import ALT, LECTURE, Runs
from grader.grading.checks import Subject
from grader.grading.pipeline import WHOLE_PASS
from grader.grading.reference import ForwardRun
from grader.result import FAIL, Check, GradRow, PassResult, facts_of
from grader.sandbox import Case, RunOutcome, Sandbox


def forward_runs(scenario: Scenario, runs: Runs, seed: int | None = None) -> dict[str, ForwardRun]:
    """Return the pass's two forward runs: the lecture batch (its numbers are shown, so it is
    computed once) and the other sizes on data and parameters drawn afresh for this
    submission from `seed` (default: a new secret one), never shown before grading."""
    return {LECTURE: runs.get(scenario, LECTURE), ALT: runs.fresh(scenario, ALT, seed)}


def pass_cases(scenario: Scenario, forward: dict[str, ForwardRun]) -> tuple[Case, ...]:
    """Return the lecture batch and another configuration, with every forward value in scope
    (and the cotangent `d<output>` of a non-scalar output)."""
    outputs = tuple(f"d{name}" for name in scenario.whole_pass)
    cases = []
    for config, run in forward.items():
        tensors = dict(run.values)
        if run.values[scenario.output].dim() > 0:
            tensors[f"d{scenario.output}"] = run.grads[scenario.output]
        cases.append(Case(config, tensors, dict(run.sizes), outputs))
    return tuple(cases)


def header(scenario: Scenario, runs: Runs) -> dict:
    """Return the dataset figures, parameter count and batch loss, as plain data."""
    run = runs.get(scenario, LECTURE)
    info = dict(runs.dataset.summary()) if scenario.uses_dataset and runs.dataset else {}
    info["scenario"] = scenario.title
    info["parameters"] = sum(run.values[p].numel() for p in scenario.params)
    info["loss"] = _loss(scenario, run)
    info["sizes"] = dict(run.sizes)
    return info


def _loss(scenario: Scenario, run) -> float:
    """Return the output, or for a non-scalar output the sum of it times its cotangent (the
    number whose gradient the pass computes)."""
    out = run.values[scenario.output]
    return float(out) if out.dim() == 0 else float((out * run.grads[scenario.output]).sum())


def grade_pass(
    scenario: Scenario, runs: Runs, sandbox: Sandbox, code: str, seed: int | None = None
) -> PassResult:
    """Run the learner's whole pass once per configuration and compare every gradient (the
    other sizes drawn afresh from `seed`, a new secret one by default)."""
    info = header(scenario, runs)
    forward = forward_runs(scenario, runs, seed)
    cases = pass_cases(scenario, forward)
    outcome = sandbox.run(code, cases)
    failed = pipeline.failure(pipeline.run(WHOLE_PASS, Subject("", outcome=outcome), pipeline.RUN))
    if failed is not None:
        error, busy = checks.learner_error(outcome), outcome.status == "busy"
        facts = facts_of(failed, ran=False) | {"fault": outcome.status == "internal"}
        return PassResult(
            False, info, (), None, failed.message, error, _stdout(outcome), busy=busy, **facts
        )
    subjects = [_subject(scenario, forward, cases, outcome, t) for t in scenario.whole_pass]
    rows = tuple(pipeline.gradient_row(WHOLE_PASS, s) for s in subjects)
    lecture = forward[LECTURE]
    slips = tuple(r.name for r in rows if _shape_only(r.name, outcome, lecture))
    tree = _tree(code)
    aliased = _alias_note(rows, tree)
    root = next((r.name for r in rows if r.status == FAIL and r.name not in slips), None)
    beyond = None
    if root is None and not slips:
        unsure = _unsure(scenario, forward[ALT], outcome, subjects)
        beyond = _other_cases(subjects) or _noise_cases(scenario, runs, sandbox, code, unsure)
    sizes_message = f"{beyond.message} {beyond.hint}".strip() if beyond else ""
    solved = root is None and not slips and not sizes_message
    notes = tuple(_slip_note(name, outcome, lecture, code) for name in slips)
    if aliased:
        message = aliased
    elif root:
        message = feedback.whole_pass_root(root)
    elif slips:  # every value right: say so first, then the shape to fix
        message = f"{feedback.whole_pass_values_match(len(rows), slips)} {notes[0]}"
        notes = notes[1:]
    else:
        message = sizes_message or feedback.whole_pass_solved(len(rows))
    stdout = _cmp_lines(tree, rows) + _stdout(outcome)
    return PassResult(
        solved,
        info,
        rows,
        root,
        message,
        stdout=stdout,
        sizes_message=sizes_message,
        notes=notes,
        shape_slips=() if root else slips,
        **facts_of(_first_failed(rows, root, slips, beyond)),
    )


def _first_failed(rows, root: str | None, slips: tuple[str, ...], beyond: Check | None):
    """Return the check that fails the pass: the root cause's, a shape slip's, the other sizes'."""
    for name in (root, *slips):
        row = next((r for r in rows if r.name == name), None)
        if row is not None:
            return pipeline.failure(list(row.checks))
    return beyond


def _tree(code: str) -> ast.Module | None:
    """Parse the code (it already parsed once, before running)."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def _shape_only(name: str, outcome: RunOutcome, lecture) -> bool:
    """Return whether a gradient has the right values in a shape that only broadcasts."""
    returned = outcome.cases[0].returned.get(name)
    got = returned.tensor if returned else None
    expected = lecture.grads[name[1:]]
    if got is None or got.shape == expected.shape or got.numel() != expected.numel():
        return False
    squeezed = tuple(d for d in got.shape if d != 1) == tuple(d for d in expected.shape if d != 1)
    return squeezed and diagnose.alike(got.to(expected.dtype).reshape(expected.shape), expected)


def _slip_note(name: str, outcome: RunOutcome, lecture, code: str) -> str:
    """Explain a gradient right in value and wrong in shape, and why the lecture's cmp passed it."""
    got = outcome.cases[0].returned[name].tensor
    expected = lecture.grads[name[1:]]
    tree = _tree(code)
    own = tree is not None and detectors.lectures_own(tree, name)
    return feedback.whole_pass_shape_slip(name, tuple(got.shape), tuple(expected.shape), own)


@dataclass(frozen=True)
class Alias:
    """`new = old` made two gradients one tensor; `changed` is the in-place line after it."""

    new: str
    old: str
    line: int
    changed: int


def aliases(tree: ast.Module | None) -> list[Alias]:
    """Find `a = b` between gradient names followed by an in-place change of either."""
    if tree is None:
        return []
    found, open_pairs = [], []
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Name)
        ):
            open_pairs.append((stmt.targets[0].id, stmt.value.id, stmt.lineno))
            continue
        changed = _changed_in_place(stmt)
        for new, old, line in list(open_pairs):
            rebound = _rebinds(stmt)
            if changed & {new, old}:
                found.append(Alias(new, old, line, stmt.lineno))
                open_pairs.remove((new, old, line))
            elif rebound & {new, old}:
                open_pairs.remove((new, old, line))
    return found


def _changed_in_place(stmt: ast.stmt) -> set[str]:
    """Names a statement changes in place: `x += ...`, `x[...] = ...`, `x.add_(...)`."""
    names = set()
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name | ast.Subscript):
        base = stmt.target if isinstance(stmt.target, ast.Name) else stmt.target.value
        if isinstance(base, ast.Name):
            names.add(base.id)
    if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                names.add(target.value.id)
    for node in ast.walk(stmt):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr.endswith("_")
            and not node.func.attr.startswith("_")
            and isinstance(node.func.value, ast.Name)
        ):
            names.add(node.func.value.id)
    return names


def _rebinds(stmt: ast.stmt) -> set[str]:
    """Names a plain assignment binds to a new value."""
    if isinstance(stmt, ast.Assign):
        return {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    return set()


def _alias_note(rows: tuple[GradRow, ...], tree: ast.Module | None) -> str:
    """Say which line made the first wrong gradient share its tensor with another."""
    wrong = {r.name for r in rows if r.status == FAIL}
    for alias in aliases(tree):
        if {alias.new, alias.old} & wrong:
            return feedback.whole_pass_alias(alias.new, alias.old, alias.line, alias.changed)
    return ""


def _cmp_lines(tree: ast.Module | None, rows: tuple[GradRow, ...]) -> str:
    """Return what the lecture's `cmp(name, dt, t)` calls would print, in the order written."""
    if tree is None:
        return ""
    by_name = {r.name: r for r in rows}
    lines = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "cmp"
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and isinstance(node.args[1], ast.Name)
        ):
            continue
        row = by_name.get(node.args[1].id)
        if row is not None:
            lines.append(
                (node.lineno, feedback.cmp_printed(node.args[0].value, row.cmp, row.message))
            )
    return "".join(text + "\n" for _, text in sorted(lines))


def _stdout(outcome: RunOutcome) -> str:
    """Return everything the code printed."""
    return "".join(c.stdout for c in outcome.cases)


def _subject(
    scenario: Scenario,
    forward: dict[str, ForwardRun],
    cases: tuple[Case, ...],
    outcome: RunOutcome,
    target: str,
) -> Subject:
    """Return one gradient of the pass as the checks read it: a row of the cmp table.

    The other sizes are drawn afresh (a drawn case's tolerance), and judge no gradient that is
    only float noise there (`dlogit_maxes`, `db1`): its values would pass or fail by the draw.
    Such a gradient is judged on the scenario's own other sizes instead (`_noise_cases`)."""
    judged = {
        c: run for c, run in forward.items() if c == LECTURE or not _silent(scenario, run, target)
    }
    return Subject(
        f"d{target}",
        outcome=outcome,
        cases={c.name: c for c in cases},
        expected={c: run.grads[target] for c, run in judged.items()},
        sizes={c: run.sizes for c, run in judged.items()},
        drawn=frozenset({ALT}),
        row=True,
    )


def _silent(scenario: Scenario, run: ForwardRun, target: str) -> bool:
    """Return whether a gradient is no larger than the float noise of its consumers' gradients."""
    return _below_noise(scenario, run, target, run.grads[target])


def _below_noise(scenario: Scenario, run: ForwardRun, target: str, t: torch.Tensor) -> bool:
    """Return whether a tensor is no larger than the float noise of the target's consumers'
    gradients in a run."""
    upstream = {c: run.grads[c] for c in scenario.consumers(target) if c in run.grads}
    noise = diagnose.noise_level({}, upstream, run.grads[target].dtype)
    return bool(t.numel()) and float(t.abs().max()) <= noise


def _unsure(
    scenario: Scenario, run: ForwardRun, outcome: RunOutcome, subjects: list[Subject]
) -> list[str]:
    """Return the noise-only gradients that the drawn other sizes cannot pass: an answer there
    that is missing, all zeros (right by coincidence only) or larger than the noise."""
    names = [s.name for s in subjects if ALT not in s.expected]
    return [n for n in names if not _noise_like(scenario, run, n, checks.answer(outcome, ALT, n))]


def _noise_like(scenario: Scenario, run: ForwardRun, name: str, got: torch.Tensor | None) -> bool:
    """Return whether an answer is float noise like the true gradient, and not all zeros."""
    expected = run.grads[name[1:]]
    if got is None or got.shape != expected.shape or not bool(got.any()):
        return False
    return _below_noise(scenario, run, name[1:], got.to(expected.dtype))


def _noise_cases(
    scenario: Scenario, runs: Runs, sandbox: Sandbox, code: str, noise: list
) -> Check | None:
    """Judge the noise-only gradients the drawn other sizes cannot pass on the scenario's own
    other sizes (one more run), as every gradient was judged before the draw; return the
    first failure."""
    if not noise:
        return None
    run = runs.get(scenario, ALT)
    cases = pass_cases(scenario, {ALT: run})
    outcome = sandbox.run(code, cases)
    if outcome.status != "ok":
        return pipeline.failure(
            pipeline.run(WHOLE_PASS, Subject("", outcome=outcome), pipeline.RUN)
        )
    for name in noise:
        expected, sizes = {ALT: run.grads[name[1:]]}, {ALT: run.sizes}
        subject = Subject(name, outcome=outcome, expected=expected, sizes=sizes, row=True)
        failed = pipeline.failure(pipeline.run(WHOLE_PASS, subject, ALT))
        if failed is not None:
            return failed
    return None


def _other_cases(subjects: list[Subject]) -> Check | None:
    """Return the first failure of a gradient beyond the lecture batch (the other sizes)."""
    for need in pipeline.PROVIDES[WHOLE_PASS]:
        if need in (pipeline.RUN, LECTURE):
            continue
        for subject in (s for s in subjects if need in s.expected):
            failed = pipeline.failure(pipeline.run(WHOLE_PASS, subject, need))
            if failed is not None:
                return failed
    return None
