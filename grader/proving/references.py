"""A course that lies is never graded in silence: each graded exercise's reference answer is
graded once, as a learner's answer is, before anyone's answers are (grade-batch), and every one
that fails is named. A wrong reference grades learners against the wrong gradient's story and
shows them a wrong answer at "reveal".

    >>> failing_references(grader, ["dh", "dW2"], slots=2)
    {'dW2': '`dW2` has the wrong shape: ...'}
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from grader.course import missing_solution

BUSY_RETRIES = 20


def failing_references(grader, ids, slots: int = 1) -> dict[str, str]:
    """Grade the reference answer of each exercise id once, `slots` at a time; return
    {id: why it fails} for those that do not solve their own exercise (missing ones too)."""
    chosen = sorted(set(ids))
    with ThreadPoolExecutor(max_workers=max(1, slots)) as pool:
        problems = list(pool.map(lambda i: reference_problem(grader, i), chosen))
    return {i: p for i, p in zip(chosen, problems, strict=True) if p}


def reference_problem(grader, exercise_id: str) -> str:
    """Return why an exercise's reference answer fails its grading ("" when it solves it)."""
    exercise = grader.catalog.get(exercise_id)
    if not exercise.solution_path.exists():
        return missing_solution(exercise)
    for _ in range(BUSY_RETRIES):
        result = grader.grade(exercise_id, exercise.solution())
        if not result.busy:
            break
        time.sleep(0.2)
    if result.solved:
        return ""
    if result.busy or result.fault:
        return "the grader failed on it (see the log); it is not proven"
    return result.summary_with_hint()
