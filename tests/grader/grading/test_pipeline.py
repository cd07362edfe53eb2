"""The checks declared once: every grading path runs the same ordered list, a new one included."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader import Grader
from grader.grading import pipeline
from grader.grading.cases import ALT, LECTURE, RANDOM
from grader.grading.pipeline import EXERCISE, GRADCHECK, STEPS, WHOLE_PASS, Step
from grader.result import FAIL, PASS, SKIPPED, TITLES, Check
from grader.sandbox import default_sandbox
from grader.training.gradcheck import check as gradient_check
from grader.training.model import lecture_model
from grader.training.records import TrainSettings

LECTURE_PASS = (Path(__file__).parents[1] / "fixtures" / "lecture_pass.py").read_text()
TOY_FAILS = ("dcounts", "dW1")  # one gradient of the whole pass, one of Exercise 4's check


def _toy(subject) -> Check:
    """A seventh check: it fails the gradients it is told to, on the lecture batch."""
    if subject.name in TOY_FAILS:
        return Check("toy", FAIL, f"`{subject.name}` fails the toy check.", "Hint: toy.")
    return Check("toy", PASS, f"`{subject.name}` passes the toy check.")


@pytest.fixture
def toy(monkeypatch):
    """Declare a toy check after the lecture batch's, in the one list."""
    at = [s.kind for s in STEPS].index("lecture") + 1
    monkeypatch.setitem(TITLES, "toy", "A toy check")
    step = Step("toy", _toy, LECTURE)
    monkeypatch.setattr(pipeline, "STEPS", STEPS[:at] + (step,) + STEPS[at:])
    return step


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog)


def _gradient_check(data, code: str):
    wire = TrainSettings().wire(data.vocab_size, data.block_size)
    program = lecture_model().program()
    return gradient_check(code, program, wire, data.Xtr, data.Ytr, default_sandbox())


def test_the_ticks_are_the_pipeline_in_order(grader, catalog):
    kinds = [s.kind for s in STEPS]
    assert kinds == ["runs", "rules", "form", "lecture", "random", "sizes"]
    for code in (catalog.get("dcounts").solution(), "loss.backward()", "dcounts = (", "x = 1"):
        result = grader.grade("dcounts", code)
        assert [c.kind for c in result.checks] == kinds, result.checks
        assert [c.title for c in result.checks] == [s.title for s in STEPS]


def test_each_path_runs_the_steps_whose_case_it_has():
    def kinds(path, needs=None):
        return [s.kind for s in pipeline.steps(path, needs)]

    assert kinds(EXERCISE) == ["runs", "rules", "form", "lecture", "random", "sizes"]
    assert kinds(WHOLE_PASS) == ["runs", "rules", "form", "lecture", "sizes"]
    assert kinds(GRADCHECK) == ["runs", "rules", "form", "lecture"]
    assert kinds(EXERCISE, LECTURE) == ["form", "lecture"]
    assert kinds(EXERCISE, RANDOM) == ["random"] and kinds(WHOLE_PASS, ALT) == ["sizes"]
    beyond = [s.kind for s in STEPS if pipeline.beyond_lecture(s.kind)]
    assert beyond == ["random", "sizes"], "what the lecture batch of a whole pass cannot show"


def test_a_failed_step_stops_the_later_ones_of_a_case_only():
    calls = []

    def fake(kind, status):
        return Step(kind, lambda s: calls.append(kind) or Check(kind, status), LECTURE)

    def whole(kind, status):
        return Step(kind, lambda s: calls.append(kind) or Check(kind, status), pipeline.RUN)

    steps = (fake("a", PASS), fake("b", FAIL), fake("c", PASS))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline, "STEPS", (whole("r1", FAIL), whole("r2", PASS), *steps))
        done = pipeline.run(EXERCISE, None)
        assert [c.kind for c in done] == ["r1", "r2"] and calls == ["r1", "r2"]
        mp.setattr(pipeline, "STEPS", steps)
        done = pipeline.run(EXERCISE, None)
        assert [c.kind for c in done] == ["a", "b"] and pipeline.reason(done) == (
            "an earlier check failed"
        )
        ticks = pipeline.complete(EXERCISE, done, "why")
        assert [(c.kind, c.status) for c in ticks][2] == ("c", SKIPPED)


def test_a_new_check_is_an_exercise_tick(grader, catalog, toy):
    result = grader.grade("dcounts", catalog.get("dcounts").solution())
    kinds = [c.kind for c in result.checks]
    assert kinds == ["runs", "rules", "form", "lecture", "toy", "random", "sizes"]
    ticks = {c.kind: c for c in result.checks}
    assert ticks["toy"].status == FAIL and ticks["toy"].title == "A toy check"
    assert ticks["random"].status == SKIPPED and not result.solved
    assert result.summary_with_hint() == "`dcounts` fails the toy check. Hint: toy."
    passed = grader.grade("dprobs", catalog.get("dprobs").solution())
    assert passed.solved and {c.kind: c.status for c in passed.checks}["toy"] == PASS


def test_a_new_check_is_in_every_row_of_the_whole_pass(grader, toy):
    result = grader.grade_pass(LECTURE_PASS)
    assert all("toy" in [c.kind for c in row.checks] for row in result.rows)
    row = next(r for r in result.rows if r.name == "dcounts")
    assert row.status == FAIL and row.message == "`dcounts` fails the toy check. Hint: toy."
    assert row.cmp is not None and row.cmp.approx, "the cmp line is still the lecture's"
    assert not result.solved and result.root_cause == "dcounts"


def test_a_new_check_is_in_every_row_of_the_gradient_check(default_data, reference_section, toy):
    result = _gradient_check(default_data, reference_section)
    assert all("toy" in [c.kind for c in row.checks] for row in result.rows)
    row = next(r for r in result.rows if r.name == "dW1")
    assert row.status == FAIL and "fails the toy check" in row.message
    assert not result.passed and result.root_cause == "dW1"


def test_a_check_left_out_of_a_path_is_not_run_there(grader, default_data, reference_section):
    toy = Step("toy", _toy, LECTURE, paths=(EXERCISE,))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline, "STEPS", (*STEPS, toy))
        assert grader.grade_pass(LECTURE_PASS).solved
        assert _gradient_check(default_data, reference_section).passed
        assert not grader.grade("dcounts", grader.catalog.get("dcounts").solution()).solved


def test_a_new_check_of_the_other_sizes_speaks_for_the_whole_pass(grader, monkeypatch):
    def alt_toy(subject) -> Check:
        status = FAIL if subject.name == "dprobs" else PASS
        return Check("alt_toy", status, f"`{subject.name}` fails at other sizes.")

    monkeypatch.setitem(TITLES, "alt_toy", "Alt toy")
    monkeypatch.setattr(pipeline, "STEPS", (*STEPS, Step("alt_toy", alt_toy, ALT)))
    result = grader.grade_pass(LECTURE_PASS)
    assert not result.solved and result.root_cause is None
    assert result.sizes_message == "`dprobs` fails at other sizes."


def test_code_that_raises_is_still_checked_for_autograd(grader):
    result = grader.grade("dprobs", "x = 1\ny = x / 0")
    statuses = [(c.kind, c.status) for c in result.checks]
    assert statuses[:3] == [("runs", FAIL), ("rules", PASS), ("form", SKIPPED)], statuses
