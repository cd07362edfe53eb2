"""A graded notebook counts: each solved part is recorded as an attempt from a notebook, so the
statuses (the sidebar, Progress, Home's map) follow the learner who did the lecture in Jupyter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app import links, services, session
from app.storage import NOTEBOOK, Attempt, facts_of
from grader import PassResult, Result

if TYPE_CHECKING:
    from grader import notebook
    from grader.result import NotebookPart, NotebookResult
    from grader.training import GradCheck

TRAINING_KEY = "training"  # app/screens/training.py records Exercise 4 under this id


def record(found: notebook.Found, report: NotebookResult) -> list[str]:
    """Record every solved part of a graded notebook (and, for a solved whole pass, each step
    exercise with the learner's own lines); return the ids recorded."""
    codes = {part.number: part.code for part in found.parts}
    attempts = []
    for part in report.parts:
        if part.status != "solved":
            continue
        code = codes.get(part.number) or ""
        attempts += _attempts(part, code, report.scenario)
    store, profile = services.store(), session.profile()
    for attempt in attempts:
        store.work.record_attempt(profile, attempt)
        session.forget_statuses()
    return [a.exercise_id for a in attempts]


def _attempts(part: NotebookPart, code: str, slug: str) -> list[Attempt]:
    """Return the attempts one solved part stands for."""
    result, summary = part.result, part.summary
    if isinstance(result, PassResult):
        key = links.whole_pass_id(slug)
        steps = [_attempt(e.id, lines, summary, result) for e, lines in _steps(result, slug)]
        return [_attempt(key, code, summary, result), *steps]
    if isinstance(result, Result):
        return [_attempt(result.exercise, code, summary, result)]
    return [_attempt(TRAINING_KEY, code, summary, result)]


def _steps(result: PassResult, slug: str):
    """Yield each step exercise of the scenario with the learner's lines for its gradient."""
    for exercise in services.catalog().exercises:
        step = exercise.given == exercise.scenario.consumers(exercise.target)
        lines = result.line_of(exercise.answer)
        if exercise.scenario.slug == slug and step and lines:
            yield exercise, lines


def _attempt(key: str, code: str, summary: str, result: Result | PassResult | GradCheck) -> Attempt:
    """Return a solved attempt from the notebook (no time spent in the app's editor)."""
    dataset = session.dataset_source()
    version = services.exercise_version(key)
    facts = facts_of(result)
    return Attempt(
        key, code, True, summary, 0.0, 0.0, dataset, 0.0, facts, version=version, origin=NOTEBOOK
    )
