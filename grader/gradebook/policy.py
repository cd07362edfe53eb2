"""The one scoring function: a course's policy applied to a class's answers, plain data in and
plain data out. `grade-batch`, the instructor dashboard's gradebook and the LMS push all call
`score`, so that the three give the same numbers.

    >>> marks = score(course, [Submission("ada", "whole_pass:01_mlp", (Verdict("not_solved",
    ...     "", right=13, parts=26),), submitted=deadline + 1)])
    >>> marks[0].credit, marks[0].late_days, marks[0].points   # per_gradient, 10% a day, 4 points
    (0.5, 1, 1.8)

An item's points are `[points]` (1 unless given) times its credit (1 when solved; with
`partial_credit`, the share of a multi-part answer right) times what the late policy keeps
(course.toml's [grading], grader/course/policy.py). A learner's own deadline comes from the
course's extensions. A cell (learner and item) counts its best answer; an answer graded again
after a fix keeps every verdict (its history), and the cell is marked when the regrade changed
it (was / now, with the versions); with `regrades = "keep_credit"` no regrade takes credit away.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from grader.course.policy import (
    CUTOFF,
    EVERY_ITEM,
    KEEP_CREDIT,
    NONE,
    PER_CHECK,
    PER_DAY,
    PER_GRADIENT,
    Grading,
)
from grader.result import GRADER_FAILED, NOT_SOLVED, SOLVED

DAY = 86400.0


@dataclass(frozen=True)
class Verdict:
    """One grading of an answer: its status, the exercise version it was graded at, and how
    much of it was right (grader.result.Tally's counts; all 0 when not known)."""

    status: str
    version: str = ""
    right: int = 0
    parts: int = 0
    passed: int = 0
    checks: int = 0


@dataclass(frozen=True)
class Submission:
    """One answer of a learner to an item: its verdicts, oldest first (the first grading, then
    each regrade), when it was submitted (seconds since the epoch; None: not known, never
    late) and where it came from (a file, an attempt), to name it in the book."""

    learner: str
    item: str
    verdicts: tuple[Verdict, ...]
    submitted: float | None = None
    source: str = ""

    @property
    def now(self) -> Verdict:
        """Return its verdict now: the latest."""
        return self.verdicts[-1]


@dataclass(frozen=True)
class Mark:
    """A cell of the gradebook, scored: the answer that counts, its credit (0 to 1, before the
    late policy), how late it was (days begun after its due time), what the late policy keeps
    (0 to 1), its points out of the item's; and, when a regrade changed the cell, what it was
    (`was`: the verdict that counted before) and whether earlier credit was kept."""

    learner: str
    item: str
    status: str
    version: str
    credit: float
    late_days: int
    kept_late: float
    points: float
    out_of: float
    due: datetime | None
    extended: bool
    source: str
    history: tuple[Verdict, ...]
    was: Verdict | None = None
    credit_kept: bool = False

    @property
    def late(self) -> bool:
        """Return whether the answer came after its due time."""
        return self.late_days > 0


def score(course, submissions: list[Submission]) -> list[Mark]:
    """Return a Mark per learner and item answered, sorted by learner then item: the course's
    points, partial credit, late policy, extensions and regrade rule applied to every
    submission, the best one counting (an earlier one on a tie)."""
    cells: dict[tuple[str, str], list[Submission]] = {}
    for s in submissions:
        cells.setdefault((s.learner, s.item), []).append(s)
    return [_cell(course, answers) for _, answers in sorted(cells.items())]


def total(marks: list[Mark], learner: str) -> float:
    """Return a learner's points: the sum of their marks."""
    return round(sum(m.points for m in marks if m.learner == learner), 6)


def credit(verdict: Verdict, partial: str) -> float:
    """Return the share of an item a verdict earns: 1 when solved; for a multi-part answer not
    solved, with partial credit, the share of its gradients right (per_gradient) or of its
    checks passed (per_check); else 0. A one-gradient answer is all or nothing."""
    if verdict.status == SOLVED:
        return 1.0
    if partial == NONE or verdict.status != NOT_SOLVED or verdict.parts < 2:
        return 0.0
    if partial == PER_GRADIENT:
        return verdict.right / verdict.parts
    return verdict.passed / verdict.checks if partial == PER_CHECK and verdict.checks else 0.0


def lateness(submitted: float | None, due: datetime | None, grading: Grading) -> tuple[int, float]:
    """Return how many days (each day begun counts) an answer came after its due time, and the
    share of its credit the late policy keeps: all (none), a percentage less per day down to
    the floor (per_day), nothing (cutoff). An answer at its due time exactly is on time."""
    if due is None or submitted is None or submitted <= due.timestamp():
        return 0, 1.0
    days = math.ceil((submitted - due.timestamp()) / DAY)
    if grading.late == CUTOFF:
        return days, 0.0
    if grading.late == PER_DAY:
        left = 100 - days * grading.late_percent_per_day
        return days, max(grading.late_floor_percent, left) / 100
    return days, 1.0


def due_for(course, learner: str, item: str) -> tuple[datetime | None, bool]:
    """Return a learner's due time for an item and whether it is an extension: their own row
    of extensions.csv for the item, else their row for every item (`*`), else the item's
    [deadlines]; `days` move the item's deadline (an item without one has none)."""
    base = course.deadline_of(item)
    rows = [e for e in course.extensions if _same(e.learner, learner)]
    found = next((e for e in rows if e.item == item), None) or next(
        (e for e in rows if e.item == EVERY_ITEM), None
    )
    if found is None:
        return base, False
    if found.due is not None:
        return found.due, True
    return (base + timedelta(days=found.days), True) if base else (None, False)


def _same(named: str, learner: str) -> bool:
    """Return whether an extension's learner is this one (spaces around and case aside)."""
    return named.strip().casefold() == learner.strip().casefold()


@dataclass(frozen=True)
class _Scored:
    """One submission scored with one of its verdicts."""

    submission: Submission
    verdict: Verdict
    credit: float
    late_days: int
    kept_late: float
    points: float


def _cell(course, answers: list[Submission]) -> Mark:
    """Score one learner's answers to one item: the best now, and the best before regrades."""
    first, grading = answers[0], course.grading
    due, extended = due_for(course, first.learner, first.item)
    out_of = course.points_of(first.item)
    now = _best([_scored(a, a.now, _credit_now(a, grading), due, grading, out_of) for a in answers])
    before = _best([_scored(a, a.verdicts[0], None, due, grading, out_of) for a in answers])
    moved = (now.verdict.status, now.points) != (before.verdict.status, before.points)
    changed = moved and any(len(a.verdicts) > 1 for a in answers)
    kept = now.credit > credit(now.verdict, grading.partial_credit)  # only with keep_credit
    return Mark(
        first.learner, first.item, now.verdict.status, now.verdict.version, round(now.credit, 6),
        now.late_days, now.kept_late, round(now.points, 6), out_of, due, extended,
        now.submission.source, now.submission.verdicts, before.verdict if changed else None, kept,
    )  # fmt: skip


def _credit_now(answer: Submission, grading: Grading) -> float:
    """Return an answer's credit now: its latest verdict's, or with keep_credit the most any
    of its verdicts earned (a regrade never takes it away)."""
    if grading.regrades == KEEP_CREDIT:
        return max(credit(v, grading.partial_credit) for v in answer.verdicts)
    return credit(answer.now, grading.partial_credit)


def _scored(answer, verdict, earned, due, grading, out_of) -> _Scored:
    """Score one submission by one verdict (earned: its credit if already known)."""
    share = credit(verdict, grading.partial_credit) if earned is None else earned
    days, kept = lateness(answer.submitted, due, grading)
    return _Scored(answer, verdict, share, days, kept, out_of * share * kept)


BETTER = (SOLVED, NOT_SOLVED, GRADER_FAILED)  # on equal points; anything else (refused) last


def _order(verdict: Verdict) -> int:
    """Return a status's place on equal points: solved, not solved, the grader failed, refused."""
    return BETTER.index(verdict.status) if verdict.status in BETTER else len(BETTER)


def _when(scored: _Scored) -> float:
    """Return a tie-break on time: a solve counts from the first, anything else from the latest
    (an answer of unknown time last)."""
    submitted = scored.submission.submitted
    if submitted is None:
        return math.inf
    return submitted if scored.verdict.status == SOLVED else -submitted


def _best(scored: list[_Scored]) -> _Scored:
    """Return the submission that counts: the most points, then the better status, then the
    first solve, else the latest answer (the dashboard's rule before points were scored)."""
    rank = [(-s.points, _order(s.verdict), _when(s), i) for i, s in enumerate(scored)]
    return scored[min(range(len(scored)), key=rank.__getitem__)]
