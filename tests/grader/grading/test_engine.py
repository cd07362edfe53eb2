"""Grading one answer end to end: the feedback table, isolation, and the proofs per exercise."""

from __future__ import annotations

from dataclasses import replace

import pytest

from grader import Catalog, Grader
from grader.feedback import voice as feedback
from grader.proving.prover import prove
from grader.sandbox import Limits, Sandbox
from grader.sandbox.verdict import message

from ..order_helpers import slot_held

# the lecture's hard-coded-size hint quotes the lecture's own sizes, its batch of 32 first
LECTURE_HARD_CODED = (
    "a size is hard-coded; use n, shapes of tensors or keepdim instead of numbers like 32, "
)


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog)


@pytest.fixture(scope="module")
def plain(default_data, catalog):
    """Return a grader whose exercises list no mistakes: only the generic diagnosis speaks."""
    bare = tuple(replace(e, mistakes=()) for e in catalog.exercises)
    return Grader(default_data, Catalog(catalog.scenarios, bare))


def _text(result) -> str:
    """Return every message and hint of a result, joined."""
    return "\n".join(f"{c.message} {c.hint}" for c in result.checks)


def lead(hint: str) -> str:
    """Return a hint sentence as the diagnosis that opens a failed check's message."""
    return hint.removeprefix(feedback.HINT)


# (case, exercise, answer, failing check, expected text)
FEEDBACK = [
    ("syntax", "dprobs", "dprobs = (1.0 /", "runs", "syntax error on line 1, column"),
    (
        "exception",
        "dprobs",
        "x = 1\ny = x / 0",
        "runs",
        "Your code raised ZeroDivisionError on line 2:",
    ),
    ("unknown name", "dprobs", "dprobs = dlogprob / probs", "runs", "you can use C, W1"),
    ("unknown name, modules", "dprobs", "dprobs = dlogprob / probs", "runs", "torch, F, math."),
    ("autograd", "dprobs", "loss.backward()\ndprobs = probs.grad", "rules", "uses autograd"),
    ("not defined", "dprobs", "x = 1", "form", feedback.not_defined("dprobs")),
    ("a list", "dprobs", "dprobs = [1, 2]", "form", "`dprobs` is a list"),
    ("integers", "dprobs", "dprobs = (dlogprobs / probs).long()", "form", "wrong dtype"),
    (
        "no keepdim",
        "dcounts_sum_inv",
        "dcounts_sum_inv = (counts * dprobs).sum(1)",
        "form",
        feedback.wrong_shape(
            "dcounts_sum_inv", (32,), (32, 1), "(n,)", "(n, 1)", why=lead(feedback.hint_keepdim())
        ),
    ),
    (
        "no sum",
        "dcounts_sum_inv",
        "dcounts_sum_inv = counts * dprobs",
        "form",
        lead(feedback.hint_sum_dims((1,), True)),
    ),
    ("bias not summed", "db2", "db2 = dlogits", "form", lead(feedback.hint_sum_dims((0,), False))),
    ("transpose", "dW2", "dW2 = dlogits.T @ h", "form", lead(feedback.hint_transpose())),
    ("non-finite", "dprobs", "dprobs = dlogprobs / (probs * 0)", "form", "non-finite"),
    (
        "sign",
        "dprobs",
        "dprobs = -(1.0 / probs) * dlogprobs",
        "lecture",
        lead(feedback.hint_sign()),
    ),
    (
        "missing consumer",
        "dbndiff",
        "dbndiff = bnvar_inv * dbnraw",
        "lecture",
        lead(feedback.hint_missing_consumer("bndiff", ("bndiff2",))),
    ),
    (
        "bessel",
        "dbndiff2",
        "dbndiff2 = 1.0 / n * torch.ones_like(bndiff2) * dbnvar",
        "lecture",
        lead(feedback.hint_factor("(n-1)/n")),
    ),
    (
        "hard-coded n",
        "dlogprobs",
        "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / 32",
        "sizes",
        LECTURE_HARD_CODED,
    ),
    (
        "hard-coded size raises",
        "dlogprobs",
        "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(32), Yb] = -1.0 / n",
        "sizes",
        "Your code raised IndexError on line 2 with n=20",
    ),
    (
        "hard-coded shape",
        "db2",
        "db2 = torch.cat([dlogits.sum(0), torch.zeros(27 - dlogits.shape[1])])",
        "sizes",
        "Got (27,), expected (19,)",
    ),
    (
        "coincidence",
        "dlogit_maxes",
        "dlogit_maxes = torch.zeros_like(logit_maxes)",
        "random",
        "your answer is all zeros",
    ),
]


@pytest.mark.parametrize(
    ("case", "exercise", "code", "kind", "text"), FEEDBACK, ids=[row[0] for row in FEEDBACK]
)
def test_feedback_names_the_problem(plain, case, exercise, code, kind, text):
    result = plain.grade(exercise, code)
    assert not result.solved
    failed = next(c for c in result.checks if c.status == "fail")
    assert failed.kind == kind, _text(result)
    assert text in f"{failed.message} {failed.hint}", _text(result)
    if case in OPENS:  # "Not yet." then the mistake named, the numbers after it
        verdict, said = result.summary().split(": ", 1)
        assert said.startswith(text) and not failed.hint, verdict


# the cases whose expected text is the diagnosis that opens the failed check's message
OPENS = ("no sum", "bias not summed", "transpose", "sign", "missing consumer", "bessel")


# the misconception id each FEEDBACK case carries as a field ("" where none is named)
IDS = {
    "unknown name": "unknown_name",
    "unknown name, modules": "unknown_name",
    "autograd": "autograd",
    "no keepdim": "keepdim_lost",
    "no sum": "broadcast_not_summed",
    "bias not summed": "broadcast_not_summed",
    "transpose": "transposed",
    "non-finite": "non_finite",
    "sign": "sign_flipped",
    "missing consumer": "missing_branch",
    "bessel": "bessel",
    "hard-coded n": "hard_coded_size",
    "hard-coded size raises": "hard_coded_size",
    "hard-coded shape": "hard_coded_size",
    "coincidence": "all_zero",
}
RAN = {"syntax": False, "exception": False, "unknown name": False, "autograd": False}


@pytest.mark.parametrize(
    ("case", "exercise", "code", "kind", "text"), FEEDBACK, ids=[row[0] for row in FEEDBACK]
)
def test_the_result_says_its_facts_as_fields(plain, case, exercise, code, kind, text):
    result = plain.grade(exercise, code)
    assert (result.failed_check, result.misconception) == (kind, IDS.get(case, "")), _text(result)
    assert result.ran is RAN.get(case.split(",")[0], True)
    assert result.status == "not_solved" and result.to_dict()["misconception"] == IDS.get(case, "")


def test_instructor_mistakes_speak_first(grader, plain):
    code = "dbndiff2 = 1.0 / n * torch.ones_like(bndiff2) * dbnvar"
    listed = grader.grade("dbndiff2", code)
    (mistake,) = [m for m in grader.catalog.get("dbndiff2").mistakes if "Bessel" in m.message]
    said = lead(mistake.message)  # the instructor's words open the message
    assert listed.summary().startswith(f"`dbndiff2` has wrong values: {said} Max abs diff")
    assert listed.misconception == mistake.misconception == "bessel", "declared in its file"
    generic = plain.grade("dbndiff2", code).summary()
    assert generic.startswith(
        f"`dbndiff2` has wrong values: {lead(feedback.hint_factor('(n-1)/n'))}"
    )


def test_a_correct_answer_passes_every_check(grader, catalog):
    result = grader.grade("dcounts", catalog.get("dcounts").solution())
    assert result.solved, _text(result)
    assert [c.status for c in result.checks] == ["pass"] * 6
    assert result.cmp.approx and result.cmp.maxdiff < 1e-6


def test_an_exception_shows_only_the_learners_lines(grader):
    result = grader.grade("dprobs", "a = 1\n\ndef f():\n    return 1 / 0\n\ndprobs = f()\n")
    assert result.error.type == "ZeroDivisionError" and result.error.line == 4
    assert "<your code>" in result.error.traceback and "grader" not in result.error.traceback


def test_wrong_values_come_with_heatmap_data(grader):
    result = grader.grade("dprobs", "dprobs = dlogprobs / probs\ndprobs[3] += 1.0\n")
    assert result.heatmap is not None and result.heatmap.rows == (3,)
    assert len(result.heatmap.learner) == 32 and result.heatmap.case == "lecture"


def test_values_wrong_only_for_random_upstreams_come_with_that_heatmap(grader):
    result = grader.grade("dlogit_maxes", "dlogit_maxes = torch.zeros_like(logit_maxes)\n")
    assert [c.status for c in result.checks][3:5] == ["pass", "fail"], result.checks
    assert result.heatmap is not None and result.heatmap.case == "random"
    assert len(result.heatmap.learner) == 32 and result.heatmap.learner[0] == [0.0]


def test_mutating_the_inputs_changes_nothing_later(grader, catalog):
    hostile = (
        "dprobs = (1.0 / probs) * dlogprobs\n"
        "for t in (probs, dlogprobs, counts, logits, W1, C):\n"
        "    t.mul_(0).add_(7)\n"
    )
    assert grader.grade("dprobs", hostile).solved
    assert grader.grade("dprobs", catalog.get("dprobs").solution()).solved
    assert grader.grade("dcounts", catalog.get("dcounts").solution()).solved


def test_each_exercise_is_proved(grader, exercise_id, catalog):
    findings = prove(catalog.get(exercise_id), grader)
    assert findings == [], "\n".join(f"{f.where}: {f.problem}" for f in findings)


def pytest_generate_tests(metafunc):
    if "exercise_id" in metafunc.fixturenames:
        from grader.course.exercises import discover

        ids = [e.id for e in discover().exercises]
        metafunc.parametrize("exercise_id", ids, ids=ids)


def test_a_full_queue_is_busy_not_a_verdict(default_data, catalog):
    box = Sandbox(Limits(cpu_seconds=5, wall_seconds=5), slots=1, queue=0)
    grader = Grader(default_data, catalog, box)
    answer = catalog.get("dlogprobs").solution()
    grader.prepared(catalog.get("dlogprobs"))
    box.layers()
    try:
        with slot_held(box._zygotes[0], lambda: grader.grade("dlogprobs", answer)):
            busy, whole = grader.grade("dlogprobs", answer), grader.grade_pass(answer)
        after = grader.grade("dlogprobs", answer)
    finally:
        box.close()
    assert busy.busy and not busy.solved and busy.summary() == message("busy", box.limits)
    assert whole.busy and whole.message == message("busy", box.limits)
    assert after.solved and not after.busy
