"""The one scoring function (grader/gradebook/policy.py) on small classes, rule by rule: partial
credit, the late curve at its edges, an extension, a regrade taking credit away and the option
that keeps it. Plain data in and out: nothing is graded here (the routes that grade are
tests/app/classroom/test_scores_agree.py, test_batch.py and test_times.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from grader.course import Course
from grader.course.policy import Extension, Grading
from grader.gradebook.policy import DAY, Submission, Verdict, credit, lateness, score, total
from grader.result import FAIL, Check, GradRow, PassResult
from grader.result import PASS as OK

DUE = datetime(2026, 12, 1, 23, 59, tzinfo=UTC)
PASS, DAB, DHR = "whole_pass:90_language", "dab", "dhr"
POINTS = ((PASS, 4), (DAB, 2), (DHR, 1))


def _course(**grading) -> Course:
    deadlines = tuple((item, DUE) for item, _ in POINTS)
    return Course(points=POINTS, deadlines=deadlines, grading=Grading(**grading))


def _answer(learner, item, status, right=0, parts=0, passed=0, checks=0, at=None, version="v1"):
    verdict = Verdict(status, version, right, parts, passed, checks)
    when = DUE.timestamp() if at is None else at
    return Submission(learner, item, (verdict,), when, f"{learner}/{item}")


CLASS = [  # ada: 6 of 11 gradients of the pass, 1 of 2 answers of dab, dhr wrong (one gradient)
    _answer("ada", PASS, "not_solved", right=6, parts=11, passed=30, checks=40),
    _answer("ada", DAB, "not_solved", right=1, parts=2, passed=9, checks=12),
    _answer("ada", DHR, "not_solved", right=0, parts=1, passed=3, checks=6),
    _answer("bob", PASS, "solved", right=11, parts=11, passed=40, checks=40),
    _answer("bob", DAB, "refused"),
]


@pytest.mark.parametrize(
    "partial, ada, bob",
    [
        ("none", 0, 4),  # a whole pass is all or nothing: ada's 6 of 11 earn nothing
        ("per_gradient", 4 * 6 / 11 + 2 * 1 / 2, 4),  # a one-gradient answer stays all or nothing
        ("per_check", 4 * 30 / 40 + 2 * 9 / 12, 4),
    ],
)
def test_partial_credit_sums_the_share_of_each_multi_part_answer(partial, ada, bob):
    marks = score(_course(partial_credit=partial), CLASS)
    assert total(marks, "ada") == pytest.approx(ada) and total(marks, "bob") == bob
    assert [(m.item, m.out_of) for m in marks if m.learner == "ada"] == [
        (DAB, 2), (DHR, 1), (PASS, 4),
    ]  # fmt: skip
    refused = next(m for m in marks if (m.learner, m.item) == ("bob", DAB))
    assert (refused.status, refused.points) == ("refused", 0)


def test_a_pass_right_on_the_batch_and_wrong_at_other_sizes_is_never_full_credit():
    rows = tuple(GradRow(f"d{i}", OK, "", checks=(Check("form", OK),)) for i in range(4))
    hard_coded = PassResult(solved=False, header={}, rows=rows, root_cause=None, message="")
    assert (hard_coded.tally.right, hard_coded.tally.parts) == (3, 4)
    assert (hard_coded.tally.passed, hard_coded.tally.checks) == (6, 7)  # runs, rules, 4, not sizes
    wrong = (*rows[:3], GradRow("d3", FAIL, "", checks=(Check("form", FAIL),)))
    root = PassResult(solved=False, header={}, rows=wrong, root_cause="d3", message="")
    assert (root.tally.right, root.tally.passed) == (3, 5)


HOUR = 3600.0


@pytest.mark.parametrize(
    "after, days, kept",
    [
        (-HOUR, 0, 1.0),
        (0.0, 0, 1.0),  # exactly at the deadline: on time
        (1.0, 1, 0.9),  # one second after: a day begun
        (DAY, 1, 0.9),
        (DAY + 1, 2, 0.8),
        (4 * DAY, 4, 0.6),
        (5 * DAY + 1, 6, 0.5),  # 40% would be below the floor
        (30 * DAY, 30, 0.5),
    ],
)
def test_the_late_curve_at_its_edges(after, days, kept):
    grading = Grading(late="per_day", late_percent_per_day=10, late_floor_percent=50)
    assert lateness(DUE.timestamp() + after, DUE, grading) == (days, pytest.approx(kept))
    marks = score(_course(late="per_day", late_floor_percent=50), [_at(after)])
    assert marks[0].points == pytest.approx(4 * kept) and marks[0].late == (days > 0)


def _at(after: float) -> Submission:
    return _answer("ada", PASS, "solved", 11, 11, 40, 40, at=DUE.timestamp() + after)


def test_a_cut_off_keeps_nothing_a_second_late_and_none_flags_only():
    assert lateness(DUE.timestamp(), DUE, Grading(late="cutoff")) == (0, 1.0)
    assert lateness(DUE.timestamp() + 1, DUE, Grading(late="cutoff")) == (1, 0.0)
    flagged = score(_course(), [_at(3 * DAY)])[0]
    assert (flagged.late_days, flagged.points) == (3, 4), "late = none: flagged, full credit"
    assert lateness(None, DUE, Grading(late="cutoff")) == (0, 1.0), "no time: never late"


def test_an_extension_moves_one_learners_due_time():
    rows = (
        Extension("Ada ", PASS, days=2),
        Extension("bob", "*", due=datetime(2026, 12, 10, tzinfo=UTC)),
    )
    course = Course(
        points=POINTS, deadlines=((PASS, DUE), (DHR, DUE)),
        grading=Grading(late="cutoff"), extensions=rows,
    )  # fmt: skip
    late = DUE.timestamp() + 1.5 * DAY
    answers = [
        _answer(who, item, "solved", 11, 11, 40, 40, at=late)
        for who in ("ada", "bob", "cy")
        for item in (PASS, DHR)
    ]
    marks = {(m.learner, m.item): m for m in score(course, answers)}
    assert [(k, m.points, m.extended) for k, m in marks.items()] == [
        (("ada", DHR), 0, False),  # her extension is for the pass only
        (("ada", PASS), 4, True),  # two more days (learner names: case and spaces aside)
        (("bob", DHR), 1, True),  # a new due time for every item
        (("bob", PASS), 4, True),
        (("cy", DHR), 0, False),
        (("cy", PASS), 0, False),
    ]
    assert marks["ada", PASS].due == datetime(2026, 12, 3, 23, 59, tzinfo=UTC)


def _regraded(first: str, then: str) -> Submission:
    """An answer graded at version v1, then again after a fix, at v2."""
    verdicts = (Verdict(first, "v1", 1, 1, 6, 6), Verdict(then, "v2", 0, 1, 4, 6))
    return Submission("ada", DHR, verdicts, DUE.timestamp(), "ada/dhr.py")


def test_a_regrade_takes_credit_away_and_marks_the_cell():
    (mark,) = score(_course(), [_regraded("solved", "not_solved")])
    assert (mark.status, mark.version, mark.points) == ("not_solved", "v2", 0)
    assert mark.was == Verdict("solved", "v1", 1, 1, 6, 6) and not mark.credit_kept
    assert [v.status for v in mark.history] == ["solved", "not_solved"]
    (kept,) = score(_course(regrades="keep_credit"), [_regraded("solved", "not_solved")])
    assert (kept.status, kept.points, kept.credit_kept) == ("not_solved", 1, True)
    assert kept.was is not None, "the cell is still marked: its verdict changed"


def test_a_regrade_that_gives_credit_marks_the_cell_too_and_an_unchanged_one_is_not_marked():
    (given,) = score(_course(regrades="keep_credit"), [_regraded("not_solved", "solved")])
    assert (given.points, given.was.status, given.credit_kept) == (1, "not_solved", False)
    (same,) = score(_course(), [_regraded("solved", "solved")])
    assert same.was is None and len(same.history) == 2


def test_the_best_answer_counts_and_a_tie_takes_the_first_solve_else_the_latest():
    early, late = DUE.timestamp() - HOUR, DUE.timestamp() + 3 * DAY
    course = _course(late="per_day", partial_credit="per_gradient")
    partial = _answer("ada", PASS, "not_solved", 10, 11, at=early)
    solved_late = _answer("ada", PASS, "solved", 11, 11, at=late)
    (mark,) = score(course, [partial, solved_late])
    assert mark.points == pytest.approx(4 * 10 / 11) and mark.late_days == 0
    wrong = [_answer("bob", DHR, "not_solved", at=t) for t in (early, early + 1)]
    assert score(course, wrong)[0].source == "bob/dhr" and score(course, wrong)[0].late_days == 0
    solves = [_answer("cy", DHR, "solved", 1, 1, at=t) for t in (early + 1, early)]
    assert score(course, solves)[0].points == 1


def test_credit_of_a_verdict_reads_only_its_counts():
    unknown = Verdict("not_solved", "", 0, 0, 0, 0)  # recorded before tallies: all or nothing
    assert credit(unknown, "per_gradient") == 0 and credit(unknown, "per_check") == 0
    assert credit(Verdict("grader_failed", "", 5, 10, 5, 10), "per_gradient") == 0
    assert credit(Verdict("solved"), "none") == 1
