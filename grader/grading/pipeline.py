"""The checks, declared once in order: every grading path runs this list (see STEPS).

A step names its kind and title, the function that judges a `Subject`, and what it reads: the
run as a whole (RUN, once per submission) or one case of it (LECTURE, RANDOM, ALT, once per
gradient). A path runs the steps whose case it has (PROVIDES) and that do not leave it out
(`paths`): one exercise shows them as ticks, the whole pass and Exercise 4's gradient check as
rows of the lecture's cmp table (the lecture-batch steps) and, for the whole pass, one verdict
on the other sizes. Adding a check is one entry here (its function beside the others in
checks.py), its title in grader/result.py's TITLES and its sentences in the voice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from grader.feedback import voice as feedback
from grader.grading import checks
from grader.grading.cases import ALT, LECTURE, RANDOM
from grader.grading.checks import Subject
from grader.result import FAIL, PASS, TITLES, Check, GradRow

EXERCISE, WHOLE_PASS, GRADCHECK = "exercise", "whole pass", "gradient check"
PATHS = (EXERCISE, WHOLE_PASS, GRADCHECK)
RUN = "run"  # the step reads the source and the run as a whole, not one case
EACH = "each case"  # the step reads every case the path has, when the lecture batch's are run
# What each path has to judge: Exercise 4's check runs one batch; the whole pass has no random
# upstream gradients (its gradients hidden by a zero upstream are graded as exercises).
PROVIDES = {
    EXERCISE: (RUN, LECTURE, RANDOM, ALT),
    WHOLE_PASS: (RUN, LECTURE, ALT),
    GRADCHECK: (RUN, LECTURE),
}


@dataclass(frozen=True)
class Step:
    """One check: its kind (a Check's `kind`), title, function, what it reads, and why the
    later steps are skipped once it fails."""

    kind: str
    check: Callable[[Subject], Check]
    needs: str
    stops: str = "an earlier check failed"
    paths: tuple[str, ...] = PATHS

    @property
    def title(self) -> str:
        """Return the step's display title (declared in grader/result.py, where Check shows it)."""
        return TITLES[self.kind]


STEPS: tuple[Step, ...] = (
    Step("runs", checks.check_runs, RUN, "the code did not run"),
    Step("rules", checks.check_rules, RUN, "it uses autograd"),
    Step("form", checks.check_form, EACH, "the answer has the wrong form"),
    Step("lecture", checks.check_lecture, LECTURE),
    Step("random", checks.check_random, RANDOM),
    Step("sizes", checks.check_sizes, ALT),
)


def steps(path: str, needs: str | None = None) -> tuple[Step, ...]:
    """Return the steps a path runs, in order (only those reading `needs`, if given)."""
    return tuple(s for s in STEPS if path in s.paths and _reads(s, path, needs))


def _reads(step: Step, path: str, needs: str | None) -> bool:
    """Return whether a step runs on a path when `needs` (None: every step) is judged; a step
    of EACH case runs first among the lecture batch's."""
    reads = LECTURE if step.needs == EACH else step.needs
    return reads in PROVIDES[path] and needs in (None, reads)


def title(kind: str) -> str:
    """Return the display title of a check's kind."""
    return TITLES[kind]


def beyond_lecture(kind: str) -> bool:
    """Return whether a check reads only cases other than the lecture batch (random, sizes)."""
    return any(s.kind == kind and s.needs not in (RUN, LECTURE, EACH) for s in STEPS)


def run(path: str, subject: Subject, needs: str | None = None) -> list[Check]:
    """Run a path's steps on a subject in order; once one fails, the later steps that read a
    case are not run (those of the run as a whole, first in order, are all made)."""
    done = []
    for step in steps(path, needs):
        if step.needs != RUN and failure(done) is not None:
            break
        done.append(step.check(subject))
    return done


def failure(done: list[Check]) -> Check | None:
    """Return the check that failed, if one did."""
    return next((c for c in done if c.status == FAIL), None)


def reason(done: list[Check]) -> str:
    """Return why the steps after a failed one were not run."""
    failed = failure(done)
    return next((s.stops for s in STEPS if failed and s.kind == failed.kind), "")


def complete(path: str, done: list[Check], why: str) -> tuple[Check, ...]:
    """Return every check of a path in order, those not run marked skipped with `why`."""
    ran = {c.kind: c for c in done}
    return tuple(ran.get(s.kind) or checks.skipped(s.kind, why) for s in steps(path))


def gradient_row(
    path: str, subject: Subject, label: str | None = None, shape: tuple[int, ...] | None = None
) -> GradRow:
    """Run a path's lecture-batch steps on one gradient: a row of the cmp table.

    The row fails with its failed check's sentence and hint; `label` names the cmp line
    (default the gradient's name) and `shape` is shown beside the row (Exercise 4).
    """
    done = tuple(run(path, subject, LECTURE))
    cmp = subject.lecture_cmp
    if cmp is not None and label:
        cmp = replace(cmp, name=label)
    failed = failure(list(done))
    if failed is not None:
        message = f"{failed.message} {failed.hint}".strip()
        return GradRow(subject.name, FAIL, message, cmp, shape, done)
    message = feedback.looks_good(subject.name, cmp.maxdiff)
    return GradRow(subject.name, PASS, message, cmp, shape, done)
