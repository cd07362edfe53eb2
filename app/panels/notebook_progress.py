"""What counts, by one rule for every route: a solved whole pass records each step exercise it
proves (with the learner's own lines for that gradient), whether it was solved on its page or in
an uploaded notebook, and each solved part of a notebook is recorded as an attempt from it. The
statuses (the sidebar, Progress, Home's map) and Exercise 4's section, which starts from the
learner's solved answers, then follow whichever route the learner took.

A step already solved is not recorded again (its count of attempts stays the learner's own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app import links, services, session
from app.classroom.lti import later
from app.storage import NOTEBOOK, PASS_STEP, SOLVED, Attempt, facts_of
from grader import PassResult, Result

if TYPE_CHECKING:
    from grader import notebook
    from grader.result import NotebookPart, NotebookResult
    from grader.training import GradCheck

TRAINING_KEY = "training"  # app/screens/training.py records Exercise 4 under this id


def record(found: notebook.Found, report: NotebookResult) -> list[str]:
    """Record every solved part of a graded notebook (and, for a solved whole pass, each step
    exercise it proves); return the ids recorded."""
    codes = {part.number: part.code for part in found.parts}
    attempts = []
    for part in report.parts:
        if part.status != "solved":
            continue
        code = codes.get(part.number) or ""
        attempts += _attempts(part, code, report.scenario)
    return _record(attempts)


def record_pass_steps(result: PassResult, slug: str) -> list[str]:
    """Record each step exercise a whole pass solved on its page proves; return the ids."""
    if not result.solved:
        return []
    return _record(
        [
            _attempt(e.id, lines, result.message, result, PASS_STEP)
            for e, lines in _steps(result, slug)
        ]
    )


def _record(attempts: list[Attempt]) -> list[str]:
    """Record the attempts of what is not solved yet (a solved step keeps its own history)."""
    store, profile = services.store(), session.profile()
    statuses = store.work.statuses(profile)
    new = [a for a in attempts if statuses.get(a.exercise_id) != SOLVED]
    for attempt in new:
        store.work.record_attempt(profile, attempt)
    later.after_attempts(store, profile.owner, [a.exercise_id for a in new])  # to their LMS
    session.forget_statuses()
    return [a.exercise_id for a in new]


def _attempts(part: NotebookPart, code: str, slug: str) -> list[Attempt]:
    """Return the attempts one solved part of a notebook stands for."""
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


def _attempt(
    key: str,
    code: str,
    summary: str,
    result: Result | PassResult | GradCheck,
    origin: str = NOTEBOOK,
) -> Attempt:
    """Return a solved attempt from a notebook or a whole pass (no time spent in the app's
    editor on it)."""
    dataset = session.dataset_source()
    version = services.exercise_version(key)
    facts = facts_of(result)
    return Attempt(
        key, code, True, summary, 0.0, 0.0, dataset, 0.0, facts, version=version, origin=origin
    )
