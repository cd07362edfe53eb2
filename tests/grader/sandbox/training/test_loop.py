"""Exercise 4's loop, run bare: seeded start, reports, and each way a learner's section stops it."""

from __future__ import annotations

import pytest
import torch

from grader.sandbox.training.loop import (
    compile_section,
    prepare,
    rate,
    section_backward,
    train,
)
from grader.training.model import lecture_model
from grader.training.records import TrainSettings


@pytest.fixture(scope="module")
def wire(default_data):
    return TrainSettings(steps=30, decay_step=20).wire(default_data.vocab_size, 3)


def _train(program, wire, data, section: str, every: float = 60.0):
    ns = prepare(program, wire, data.Xtr, data.Ytr)
    reports = []
    with torch.inference_mode():
        ended = train(
            program, ns, wire, section_backward(compile_section(section)), _record(reports), every
        )
    return ended, reports, ns


def _record(reports: list):
    return lambda step, elapsed, losses: reports.append((step, elapsed, list(losses)))


def test_init_draws_the_lecture_shapes_from_the_seed(program, wire, default_data):
    first = prepare(program, wire, default_data.Xtr, default_data.Ytr)
    again = prepare(program, wire, default_data.Xtr, default_data.Ytr)
    other = prepare(program, wire | {"seed": 1}, default_data.Xtr, default_data.Ytr)
    for name, shape in lecture_model().param_shapes(wire).items():
        assert first[name].shape == shape and torch.equal(first[name], again[name])
    assert not torch.equal(first["W1"], other["W1"])


def test_the_rate_decays_at_the_decay_step(wire):
    assert [rate(wire, i) for i in (0, 19, 20, 29)] == [0.1, 0.1, 0.01, 0.01]


def test_every_step_is_reported_once_in_order(program, wire, default_data, reference_section):
    ended, reports, _ = _train(program, wire, default_data, reference_section, every=0.0)
    assert ended.reason is None and ended.step == 30
    assert [r[0] for r in reports] == list(range(1, 31)) + [30]
    losses = [loss for r in reports for loss in r[2]]
    assert len(losses) == 30 and losses[-1] < losses[0]
    assert all(b[1] >= a[1] for a, b in zip(reports, reports[1:], strict=False))


def test_the_loop_trains_its_own_parameters(program, wire, default_data, reference_section):
    start = prepare(program, wire, default_data.Xtr, default_data.Ytr)
    _, _, ns = _train(program, wire, default_data, reference_section)
    assert all(not torch.equal(ns[p], start[p]) for p in program.params)


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ("dW1 = dW1.T", "`dW1` has the wrong shape: got (200, 30), expected (30, 200)."),
        ("del db2", "`db2` is not defined."),
        ("dbngain = dbngain.tolist()", "`dbngain` is a list, not a tensor."),
    ],
)
def test_a_bad_gradient_stops_the_loop_naming_it(program, wire, default_data,
                                                 reference_section, change, detail):  # fmt: skip
    ended, reports, _ = _train(program, wire, default_data, reference_section + change + "\n")
    assert (ended.step, ended.reason, ended.detail) == (0, "gradient", detail)
    assert reports == [(0, reports[0][1], [])]


def test_an_exception_stops_the_loop_at_its_step(program, wire, default_data, reference_section):
    count = "calls = globals().get('calls', 0) + 1\nif calls == 5:\n    1 / 0\n"
    ended, reports, _ = _train(program, wire, default_data, reference_section + count)
    assert (ended.step, ended.reason) == (4, "error")
    assert isinstance(ended.error, ZeroDivisionError)
    assert sum(len(r[2]) for r in reports) == 4


def test_a_nan_gradient_stops_the_loop_at_the_next_loss(
    program, wire, default_data, reference_section
):
    ended, _, _ = _train(
        program, wire, default_data, reference_section + "dC = dC * float('nan')\n"
    )
    assert (ended.step, ended.reason, ended.detail) == (1, "nonfinite", "nan")


def test_the_program_trains_the_lectures_seven_parameters(program):
    assert program.params == ("C", "W1", "b1", "W2", "b2", "bngain", "bnbias")
    assert program.grads == ("dC", "dW1", "db1", "dW2", "db2", "dbngain", "dbnbias")


def test_the_section_sees_the_numbers_the_shown_loop_defines(
    program, wire, default_data, reference_section
):
    steps = "seen = globals().setdefault('seen', [])\nseen.append((i, batch_size, max_steps))\n"
    ended, _, ns = _train(program, wire, default_data, reference_section + steps)
    assert ended.reason is None and ended.step == 30
    assert ns["seen"] == [(i, 32, 30) for i in range(30)]
