"""Fresh cases where fresh ones are promised, and a nan anywhere named as such.

Answers made of values computed offline (here in the test, with autograd, as an attacker would
at home) pass a check whose data is fixed; Exercise 4's gradient check and the whole pass's
other sizes are drawn afresh for every submission, so they are refused. A nan that appears only
on a random or other-sizes case is "not finite", never "the grader failed". Learner code runs in
the sandbox only; run as root and, by test_hostile_unprivileged.py, as an ordinary user.
"""

from __future__ import annotations

import pytest

from grader import Grader
from grader.grading.cases import ALT, LECTURE
from grader.sandbox import default_sandbox
from grader.training.gradcheck import check, first_step
from grader.training.model import lecture_model
from grader.training.records import TrainSettings

from .test_wholepass import LECTURE_PASS

SETTINGS = {"n_hidden": 64, "batch_size": 20}


def _literal(tensor) -> str:
    """Return a tensor as Python source that rebuilds it exactly (float32 round-trips)."""
    return f"torch.tensor({tensor.tolist()!r}, dtype=torch.{str(tensor.dtype).split('.')[1]})"


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog)


def test_a_gradient_check_answered_with_offline_values_is_refused(default_data):
    wire = TrainSettings(**SETTINGS).wire(default_data.vocab_size, default_data.block_size)
    program = lecture_model().program()
    _, offline = first_step(program, wire, default_data.Xtr, default_data.Ytr)
    code = "".join(f"{name} = {_literal(offline[name])}\n" for name in program.grads)
    result = check(code, program, wire, default_data.Xtr, default_data.Ytr, default_sandbox())
    assert not result.passed, "values computed before the submission must not open training"
    assert result.root_cause in program.grads and any(r.status == "fail" for r in result.rows)


def test_a_whole_pass_with_offline_other_sizes_values_is_refused(grader, mlp):
    alt = grader.runs.get(mlp, ALT)  # the other sizes as they were before any submission
    lecture = grader.runs.get(mlp, LECTURE)
    offline = (
        f"\ndC = {_literal(lecture.grads['C'])} if n == {lecture.sizes['n']} "
        f"else {_literal(alt.grads['C'])}\n"
    )
    code = LECTURE_PASS + offline
    assert grader.grade_pass(LECTURE_PASS).solved, "the honest pass is solved"
    result = grader.grade_pass(code)
    assert not result.solved, "dC computed offline for the other sizes must not pass"
    assert "dC" in result.sizes_message


# Exercises given only the scalar loss: a random upstream weighting cannot change their answer,
# so the other sizes' data itself is drawn for each submission.
GIVEN_ONLY_THE_LOSS = ("dlogprobs", "dlogits_fused", "dlogits_wn")


@pytest.mark.parametrize("exercise_id", GIVEN_ONLY_THE_LOSS)
def test_an_answer_with_offline_other_sizes_values_is_refused(grader, exercise_id):
    exercise = grader.catalog.get(exercise_id)
    before = grader.runs.get(exercise.scenario, ALT)  # the other sizes before any submission
    lecture = grader.runs.get(exercise.scenario, LECTURE)
    target, answer = exercise.target, exercise.answer
    shape = tuple(lecture.values[target].shape)
    assert shape != tuple(before.values[target].shape)
    code = (
        f"{answer} = {_literal(lecture.grads[target])} if tuple({target}.shape) == {shape} "
        f"else {_literal(before.grads[target])}\n"
    )
    assert grader.grade(exercise_id, exercise.solution()).solved, "the honest answer is solved"
    result = grader.grade(exercise_id, code)
    assert not result.solved, "values computed offline for the other sizes must not pass"
    failed = next(c for c in result.checks if c.status == "fail")
    assert failed.kind != "runs", result.checks


# An answer right on the lecture batch and nan on a later case: the lecture's upstream
# `dlogprobs` holds n non-zeros, a random one is dense; the other sizes have n = 20.
DPROBS = "dprobs = (1.0 / probs) * dlogprobs\n"
NAN_ON = {
    "random": DPROBS + "if int((dlogprobs != 0).sum()) > n:\n    dprobs = dprobs * float('nan')\n",
    "sizes": DPROBS + "if n != 32:\n    dprobs = dprobs * float('nan')\n",
    "random, inf": DPROBS
    + "if int((dlogprobs != 0).sum()) > n:\n    dprobs[0, 0] = float('inf')\n",
}


@pytest.mark.parametrize("case", list(NAN_ON))
def test_a_nan_on_a_later_case_is_not_finite_not_a_grader_failure(grader, case):
    assert grader.grade("dprobs", DPROBS).solved, "the honest answer is solved"
    result = grader.grade("dprobs", NAN_ON[case])
    assert not result.solved
    failed = next(c for c in result.checks if c.status == "fail")
    assert failed.kind == "form", result.checks
    assert "non-finite" in failed.message and "grader failed" not in failed.message


def test_a_whole_pass_with_a_nan_on_the_other_sizes_is_not_a_grader_failure(grader):
    code = LECTURE_PASS + "\nif n != 32:\n    dC = dC * float('nan')\n"
    result = grader.grade_pass(code)
    assert not result.solved and "grader failed" not in result.message, result.message
    assert "dC" in result.sizes_message
