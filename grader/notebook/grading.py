"""Grade the exercises found in a notebook, each with the grader that already exists for it."""

from __future__ import annotations

import logging
import time
from dataclasses import replace

from grader.feedback import status
from grader.feedback import voice as feedback
from grader.notebook.cells import MISSING, UNFILLED, Found, Part
from grader.result import NotebookPart, NotebookResult
from grader.training.records import GradCheck

log = logging.getLogger("grader")
EXERCISE_IDS = {2: "dlogits_fused", 3: "dhprebn_fused"}  # Exercises 2 and 3 as exercises


def grade(found: Found, grader, exercise4) -> NotebookResult:
    """Grade each written exercise with its own grader; blanks and missing cells are reported.

    `grader` is a grader.Grader; `exercise4(code)` returns Exercise 4's GradCheck (the
    gradient check of the training loop's first step).
    """
    start = time.perf_counter()
    scenario = lecture_scenario(grader.catalog)
    parts = tuple(_graded(p, grader, exercise4, scenario) for p in found.parts)
    elapsed = time.perf_counter() - start
    result = NotebookResult(found.name, parts, "", grader.header(scenario), scenario, elapsed)
    return replace(result, message=_message(result))


def _message(result: NotebookResult) -> str:
    """Say what is left: nothing, only the shapes the lecture's own `cmp` lets through (the
    notebook matches the lecture), or the parts not solved yet."""
    parts = result.parts
    left = tuple(p.title for p in parts if p.status != "solved")
    if not left:
        return feedback.notebook_solved(len(parts))
    if result.shapes_only:
        return feedback.notebook_matches_lecture(result.shapes_only, len(parts) - 1)
    return feedback.notebook_left(left)


def lecture_scenario(catalog) -> str | None:
    """Return the scenario a notebook is graded on (Exercise 2's: the lecture's MLP), if any."""
    ids = {e.id for e in catalog.exercises}
    return catalog.get(EXERCISE_IDS[2]).scenario.slug if EXERCISE_IDS[2] in ids else None


def exercise4(dataset, sandbox, catalog):
    """Return Exercise 4's gradient check with the lecture's settings, as grade() takes it."""
    from grader.training import gradcheck
    from grader.training.model import course_model
    from grader.training.records import TrainSettings

    wire = TrainSettings().wire(dataset.vocab_size, dataset.block_size)
    program = course_model(catalog).program()
    data, language = (dataset.Xtr, dataset.Ytr), catalog.course.language
    return lambda code: gradcheck.check(code, program, wire, *data, sandbox, language)


def _graded(part: Part, grader, exercise4, scenario: str) -> NotebookPart:
    """Grade one exercise, or say why it was not graded."""
    if part.state == MISSING:
        return NotebookPart(
            part.number, part.title, None, MISSING, feedback.notebook_missing(part.title)
        )
    if part.state == UNFILLED:
        return NotebookPart(
            part.number, part.title, part.cell, UNFILLED, feedback.notebook_unfilled(part.title)
        )
    if part.number == 1:
        result = grader.grade_pass(part.code, scenario)
    elif part.number == 4:
        result = _exercise4(exercise4, part.code)
    else:
        result = grader.grade(EXERCISE_IDS[part.number], part.code)
    return NotebookPart(
        part.number, part.title, part.cell, _status(result), _summary(result), result
    )


def _exercise4(exercise4, code: str):
    """Run Exercise 4's gradient check; a fault of the grader is reported as one."""
    try:
        return exercise4(code)
    except Exception:
        log.exception("the gradient check of a notebook failed")
        return GradCheck(False, (), None, feedback.GRADER_FAULT, fault=True)


def _status(result) -> str:
    """Return solved, not_solved, grader_failed or busy for any of the three kinds of result."""
    if hasattr(result, "passed"):  # Exercise 4's GradCheck
        if result.fault:
            return "grader_failed"
        return "solved" if result.passed else "not_solved"
    return status(result)


def _summary(result) -> str:
    """Return the one line a result is summed up by."""
    return result.summary_with_hint() if hasattr(result, "summary_with_hint") else result.message
