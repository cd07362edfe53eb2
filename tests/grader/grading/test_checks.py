"""The check functions on a `Subject`: an exercise's ticks and a cmp table's rows, no sandbox."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from grader.feedback import voice as feedback
from grader.grading.cases import ALT, LECTURE
from grader.grading.checks import (
    Subject,
    check_form,
    check_lecture,
    check_rules,
    check_runs,
    check_sizes,
    learner_error,
    screen,
)
from grader.grading.hints import Clues
from grader.misconceptions import LISTED_MISTAKE, Found
from grader.result import FAIL, INCONCLUSIVE, PASS, SKIPPED
from grader.sandbox import CaseOutcome, LearnerError, Returned, RunOutcome

EXPECTED = torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=torch.float64)
SIZES = {"n": 2, "vocab_size": 3}
ALT_SIZES = {"n": 3, "vocab_size": 5}
# the diagnosis that opens the message of a (3,) answer for a (2, 3) gradient: a dim summed away
SUMMED = feedback.hint_broadcast_back("(n, vocab_size)", [0], ["n"]).removeprefix(feedback.HINT)


def _outcome(got, alt=None, status="ok", error=None, message="") -> RunOutcome:
    """Return a run in which `dx` held `got` on the lecture batch and `alt` at other sizes."""

    def case(name, value, err=None):
        returned = {} if value is None else {"dx": Returned("dx", value, None)}
        return CaseOutcome(name, err, returned, "")

    cases = (case(LECTURE, got, error), case(ALT, alt))
    return RunOutcome(status, message, cases if status == "ok" else (), 0.0)


def _subject(got, row=False, **kw) -> Subject:
    outcome = kw.pop("outcome", None) or _outcome(got, kw.pop("alt", None))
    expected = {LECTURE: EXPECTED, ALT: torch.ones(3, 5, dtype=torch.float64)}
    sizes = {LECTURE: SIZES, ALT: ALT_SIZES}
    return Subject("dx", outcome=outcome, expected=expected, sizes=sizes, row=row, **kw)


# (case, answer, row, status, expected message)
FORM = [
    ("undefined tick", None, False, FAIL, feedback.not_defined("dx")),
    ("undefined row", None, True, FAIL, feedback.not_tensor("dx", "is not defined")),
    (
        "shape tick names the sizes",
        EXPECTED[0],
        False,
        FAIL,
        feedback.wrong_shape("dx", (3,), (2, 3), "(vocab_size,)", "(n, vocab_size)", why=SUMMED),
    ),
    ("shape row", EXPECTED[0], True, FAIL, feedback.wrong_shape("dx", (3,), (2, 3), why=SUMMED)),
    (
        "integers tick",
        EXPECTED.long(),
        False,
        FAIL,
        feedback.wrong_dtype("dx", "torch.int64", "torch.float64"),
    ),
    ("integers row", EXPECTED.long(), True, PASS, feedback.form_ok("dx", (2, 3))),
    ("nan tick", EXPECTED * float("nan"), False, FAIL, feedback.not_finite("dx", 6, (0, 0))),
    ("right", EXPECTED.clone(), False, PASS, feedback.form_ok("dx", (2, 3))),
]


@pytest.mark.parametrize(
    ("case", "got", "row", "status", "message"), FORM, ids=[r[0] for r in FORM]
)
def test_form(case, got, row, status, message):
    check = check_form(_subject(got, row))
    assert (check.kind, check.status, check.message) == ("form", status, message)


def test_lecture_says_exact_as_a_tick_and_the_cmp_line_as_a_row():
    assert check_lecture(_subject(EXPECTED.clone())).message == feedback.exact("dx")
    row = check_lecture(_subject(EXPECTED.clone(), row=True))
    assert row.status == PASS and row.message == feedback.looks_good("dx", 0.0)


def test_lecture_reads_the_clues_only_when_wrong_and_carries_the_id_found():
    asked = []
    mine = Found(LISTED_MISTAKE, said="Hint: mine.")
    listed = ((mine, lambda: asked.append(LECTURE) or EXPECTED * 2),)
    clues = {LECTURE: Clues(EXPECTED, EXPECTED, "x", 2, {}, listed)}
    assert check_lecture(_subject(EXPECTED.clone(), clues=clues)).status == PASS and asked == []
    wrong = check_lecture(_subject(EXPECTED * 2, clues=clues))
    assert wrong.status == FAIL and wrong.hint == "" and asked == [LECTURE]
    assert wrong.misconception == LISTED_MISTAKE  # the mistake first, then the numbers
    assert wrong.message.startswith("`dx` has wrong values: mine. Max abs diff 4.0e+00 at (1, 1)")


def test_a_diagnosis_opens_the_message_and_the_numbers_follow():
    clues = {LECTURE: Clues(EXPECTED, EXPECTED, "x", 2, {})}
    wrong = EXPECTED.clone()
    wrong[1] += torch.tensor([1.0, 0.5, 0.25])
    wrong[0] -= torch.tensor([0.5, 0.25, 0.125])
    check = check_lecture(_subject(wrong, clues=clues))
    formula = feedback.hint_formula_wrong(1.0).removeprefix(feedback.HINT)
    assert check.message == feedback.inaccurate(
        "dx", 1.0, (1, 0), (1e-08, 1e-05), 4.0, why=formula
    ), "every entry of a 2 x 3 gradient differs, by no sign or factor: the formula is wrong"
    assert check.message.startswith(f"`dx` has wrong values: {formula} Max abs diff 1.0e+00")
    assert check.hint == "" and check.misconception == "formula_wrong"
    bare = check_lecture(_subject(wrong))  # no clues: nothing named, the numbers alone
    assert bare.message.startswith("`dx` has wrong values: max abs diff 1.0e+00 at (1, 0)")
    assert bare.hint == "" and bare.misconception == ""
    one = EXPECTED.clone()
    one[1, 2] += 1.0  # one entry of six: a where-list, not "almost every entry"
    where = check_lecture(_subject(one, clues=clues))
    assert where.misconception == "wrong_values" and "almost every" not in where.message
    assert where.hint == feedback.hint_where((1,), (2,), 1 / 6, 1, ())


def test_lecture_is_inconclusive_below_the_noise():
    tiny = EXPECTED * 1e-7
    subject = replace(_subject(tiny * 0), expected={LECTURE: tiny})
    assert check_lecture(subject).status == FAIL
    assert check_lecture(replace(subject, noise=lambda: 1e-6)).status == INCONCLUSIVE


def test_sizes_as_a_tick_and_as_the_whole_pass_says_it():
    zeros = torch.zeros(3, 5, dtype=torch.float64)
    tick = check_sizes(_subject(EXPECTED, alt=zeros))
    hard_coded = feedback.hint_hard_coded(tuple(SIZES.items())).removeprefix(feedback.HINT)
    assert tick.status == FAIL and tick.hint == "" and tick.misconception == "hard_coded_size"
    assert tick.message.startswith(f"`dx` has wrong values: {hard_coded} Max abs diff")
    row = check_sizes(_subject(EXPECTED, row=True, alt=zeros))
    assert (
        row.message
        == feedback.wrong_with("dx", ALT_SIZES)
        == "`dx` is wrong with n=3, vocab_size=5."
    )
    right = check_sizes(_subject(EXPECTED, alt=torch.ones(3, 5, dtype=torch.float64)))
    assert right.status == PASS and right.message == feedback.passes_sizes("dx", ALT_SIZES)


def test_the_run_checks_read_the_source_then_the_run():
    unparsed = _subject(None, source=screen("dx = ("))
    assert (
        check_runs(unparsed).status == FAIL
        and "syntax error on line 1" in check_runs(unparsed).message
    )
    assert check_rules(unparsed).status == SKIPPED
    static = _subject(None, source=screen("loss.backward()"))
    assert check_runs(static).status == SKIPPED and check_rules(static).status == FAIL
    forbidden = replace(_outcome(None, status="forbidden", message="uses autograd"), autograd=True)
    caught = _subject(None, outcome=forbidden)
    assert check_runs(caught).status == SKIPPED and check_rules(caught).message == "uses autograd"
    timeout = _subject(None, outcome=_outcome(None, status="timeout", message="too slow"))
    assert check_runs(timeout).message == "too slow" and check_rules(timeout).status == PASS


def test_an_exception_is_the_runs_check_and_the_learners_error():
    error = LearnerError("ZeroDivisionError", "division by zero", 2, "")
    outcome = _outcome(None, error=error)
    check = check_runs(_subject(None, outcome=outcome))
    assert check.status == FAIL and check.message == feedback.raised("ZeroDivisionError", 2)
    assert learner_error(outcome) is error
    assert learner_error(_outcome(EXPECTED)) is None
