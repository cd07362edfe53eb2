"""Withdraw the scenarios that fail to run: a line that raises takes its whole scenario out.

Discovery reads files without running them; every page and command that shows a scenario (its
graph, its figures, its whole pass, its exercises) runs it. A scenario whose setup or forward
program raises in either configuration is withdrawn with all of that, and reported at its
program and line, so that the rest keeps serving.
"""

from __future__ import annotations

from grader.course import BadInput, Catalog, Scenario, SchemaError
from grader.grading import ScenarioError, run_forward, synthetic_data

WITHDRAWN = "the scenario is withdrawn (its graph, its whole pass and its exercises)"


def runnable(catalog: Catalog) -> Catalog:
    """Return the catalog without the scenarios that raise, each reported where it raises."""
    found = {s.slug: run_error(s) for s in catalog.scenarios}
    failed = {slug: err for slug, err in found.items() if err is not None}
    return catalog.withdraw(tuple(failed.values()), scenarios=tuple(failed))


def require_runnable(scenarios) -> None:
    """Refuse (BadInput) to grade on a scenario that raises, naming its file, program and line."""
    for scenario in scenarios:
        err = run_error(scenario)
        if err is not None:
            raise BadInput(f"{err.where}: {err.problem}")


def run_error(scenario: Scenario) -> SchemaError | None:
    """Run a scenario with its sizes and alt_sizes on synthetic data; return where it raises."""
    for label, sizes in (("sizes", scenario.sizes), ("alt_sizes", scenario.alt_sizes)):
        full = {"vocab_size": 27, **sizes}
        try:
            data = synthetic_data(full, scenario.seed) if scenario.uses_dataset else None
            run_forward(scenario, full, data)
        except ScenarioError as err:
            return SchemaError(err.where, f"raises with {label}: {err.problem}; {WITHDRAWN}")
        except Exception as err:  # e.g. an output that is not a scalar cannot be differentiated
            problem = f"does not run with {label}: {type(err).__name__}: {err}; {WITHDRAWN}"
            return SchemaError(str(scenario.path), problem)
    return None
