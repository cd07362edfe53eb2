"""Checks of a scenario that need it to run: shape comments, alt sizes, errors at their line,
and exercises whose `given` leaves a path to the loss uncut (used by grader/proving/prover.py).

Each check returns (where, problem) pairs: the file and field or line, and what is wrong.
"""

from __future__ import annotations

from grader.course import Scenario, evaluate_shape
from grader.grading import ScenarioError, run_forward, synthetic_data

Finding = tuple[str, str]  # (where, problem)


_CHECKED: dict[tuple[str, str], tuple[Finding, ...]] = {}


def check_scenario(scenario: Scenario) -> tuple[Finding, ...]:
    """Run the scenario in both configurations on synthetic data and check what it declares
    (once per content of the scenario file)."""
    key = (str(scenario.path), repr((scenario.sizes, scenario.alt_sizes, scenario.forward)))
    if key not in _CHECKED:
        _CHECKED[key] = _check(scenario)
    return _CHECKED[key]


def _check(scenario: Scenario) -> tuple[Finding, ...]:
    """Check one scenario."""
    where = str(scenario.path)
    findings = [
        (
            f"{where}: alt_sizes.{key}",
            f"equals sizes.{key} ({value}); every size must "
            "differ so that a hard-coded number is caught",
        )  # fmt: skip
        for key, value in scenario.alt_sizes.items()
        if scenario.sizes.get(key) == value
    ]
    for label, sizes in (("sizes", scenario.sizes), ("alt_sizes", scenario.alt_sizes)):
        full = dict(sizes)
        full.setdefault("vocab_size", 27)
        data = synthetic_data(full, scenario.seed) if scenario.uses_dataset else None
        try:
            run = run_forward(scenario, full, data)
        except ScenarioError as err:
            return tuple(findings) + ((err.where, f"raises with {label}: {err.problem}"),)
        findings += _shape_comments(scenario, run, full, label)
        findings += _gradients(scenario, run)
    return tuple(dict.fromkeys(findings))


def _shape_comments(scenario: Scenario, run, sizes: dict, label: str) -> list[Finding]:
    """Compare every shape comment with the shape the line really makes."""
    found = []
    for program, statements in (("setup", scenario.setup), ("forward", scenario.forward)):
        for stmt in statements:
            value = run.values.get(stmt.target)
            if not stmt.shape or value is None:
                continue
            declared = evaluate_shape(stmt.shape, sizes)
            if declared is not None and declared != tuple(value.shape):
                found.append(
                    (
                        stmt.place(scenario.path, program),
                        f"the shape comment of `{stmt.target}` says {stmt.shape}, which is "
                        f"{declared} with {label}, but the line makes {tuple(value.shape)}",
                    )
                )
    return found


def _gradients(scenario: Scenario, run) -> list[Finding]:
    """Compare which forward tensors the language takes to carry a gradient with autograd."""
    found = []
    for stmt in scenario.forward:
        if stmt.target not in run.values or stmt.differentiable == (stmt.target in run.grads):
            continue
        if stmt.differentiable:
            problem = (
                f"`{stmt.target}` gets no gradient from autograd: it does not lead to "
                f"`{scenario.output}`, or an operation on its line carries no gradient"
            )
        else:
            problem = (
                f"`{stmt.target}` is taken to carry no gradient (a comparison, indices or a "
                "detached value), but autograd gives it one"
            )
        found.append((stmt.place(scenario.path, "forward"), problem))
    return found


def given_cuts(exercise) -> list[Finding]:
    """Report a `given` that leaves a path from a target (each answer's) to the output uncut."""
    return next((found for part in exercise.parts() if (found := _uncut(part))), [])


def _uncut(exercise) -> list[Finding]:
    """Report the first path from the exercise's target to the output that `given` leaves."""
    scenario, given = exercise.scenario, set(exercise.given)
    seen, frontier = set(), [exercise.target]
    while frontier:
        name = frontier.pop()
        for consumer in scenario.consumers(name):
            if consumer in given or consumer in seen:
                continue
            if consumer == scenario.output:
                return [
                    (
                        f"{exercise.path}: given",
                        f"leaves a path from `{exercise.target}` to `{scenario.output}` through "
                        f"`{name}` -> `{consumer}` uncut; add the consumer on that path",
                    )
                ]
            seen.add(consumer)
            frontier.append(consumer)
    return []
