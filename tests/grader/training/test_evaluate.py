"""After training: batchnorm calibration, split losses, samples, loss curves, the dC loop's cost."""

from __future__ import annotations

import math

import pytest
import torch

from grader.sandbox.training.loop import prepare, section_backward, train
from grader.training.evaluate import (
    DC_INDEX_ADD,
    DC_LOOP,
    advise,
    calibrate,
    curve,
    evaluate,
    lecture_section,
    sample,
    step_cost,
)
from grader.training.records import TrainSettings


@pytest.fixture(scope="module")
def params(program, default_data):
    ns = prepare(
        program,
        TrainSettings().wire(default_data.vocab_size, 3),
        default_data.Xtr,
        default_data.Ytr,
    )
    return {name: ns[name] for name in program.params}


@pytest.fixture(scope="module")
def bn(model, params, default_data):
    """Return batchnorm's statistics over the whole training set (1.5 s: computed once here)."""
    return calibrate(model, params, default_data.Xtr)


def test_the_curve_is_the_mean_log10_loss_of_each_whole_bucket():
    losses = torch.tensor([10.0] * 4 + [100.0] * 4)
    assert curve(losses, 8, 4) == pytest.approx((1.0, 2.0))
    assert curve(losses, 7, 4) == pytest.approx((1.0,))
    assert curve(losses, 3, 4) == ()


def test_calibration_is_over_the_whole_training_set(model, params, default_data):
    mean, var = calibrate(model, params, default_data.Xtr)
    hpreact = params["C"][default_data.Xtr].view(-1, 30) @ params["W1"] + params["b1"]
    assert mean.shape == var.shape == (1, 200)
    assert torch.allclose(mean, hpreact.mean(0, keepdim=True))
    assert torch.allclose(var, hpreact.var(0, keepdim=True))


def test_an_untrained_model_scores_about_log_27_and_samples_names(model, params, default_data):
    evaluation = evaluate(model, params, default_data, seed=2147483647)
    assert abs(evaluation.train_loss - math.log(27)) < 0.5
    assert abs(evaluation.val_loss - evaluation.train_loss) < 0.1
    assert len(evaluation.samples) == 20
    assert all(s.endswith(".") or len(s) == 50 for s in evaluation.samples)


def test_samples_follow_the_seed_plus_ten(model, params, bn, default_data):
    first = sample(model, params, bn, default_data.itos, 3, 2147483647)
    assert first == sample(model, params, bn, default_data.itos, 3, 2147483647)
    assert first != sample(model, params, bn, default_data.itos, 3, 2147483647 + 10)


def test_samples_are_the_lectures_last_cell(model, params, bn, default_data):
    """Sample as the lecture's last cell does, by hand, with its generator seed."""
    g = torch.Generator().manual_seed(2147483647 + 10)
    expected = []
    for _ in range(20):
        out, context = [], [0] * 3
        while True:
            emb = params["C"][torch.tensor([context])]
            hpreact = emb.view(1, -1) @ params["W1"] + params["b1"]
            hpreact = params["bngain"] * (hpreact - bn[0]) * (bn[1] + 1e-5) ** -0.5
            h = torch.tanh(hpreact + params["bnbias"])
            probs = torch.softmax(h @ params["W2"] + params["b2"], dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0 or len(out) == 50:
                break
        expected.append("".join(default_data.itos[i] for i in out))
    assert sample(model, params, bn, default_data.itos, 3, 2147483647) == tuple(expected)


def test_a_model_with_nan_cannot_be_evaluated(model, params, default_data):
    broken = dict(params, W2=params["W2"] * float("nan"))
    assert evaluate(model, broken, default_data, seed=1) is None


def test_the_timed_section_is_the_reference_answers_with_either_form_of_dc(program, default_data):
    section = lecture_section()
    assert "dhprebn = (" in section and section.rstrip().endswith("dC = torch.zeros_like(C)")
    wire = TrainSettings().wire(default_data.vocab_size, 3)
    results = []
    for dc in (DC_LOOP, DC_INDEX_ADD):
        ns = prepare(program, wire, default_data.Xtr, default_data.Ytr)
        code = compile(section + dc, "<lecture>", "exec", dont_inherit=True)
        grads = []
        with torch.inference_mode():
            train(
                program,
                ns,
                {**wire, "steps": 1},
                _keep(section_backward(code), grads),
                lambda *a: None,
            )
        results.append(grads[0])
    loop, add = results
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(loop, add, strict=True))
    assert loop[0].abs().sum() > 0  # dC itself is not all zeros


def _keep(backward, into: list):
    """Wrap a backward function so that the gradients of each step are kept."""

    def keep(ns, params):
        grads = backward(ns, params)
        into.append([g.clone() for g in grads])
        return grads

    return keep


def test_advice_scales_the_runs_speed_by_the_measured_ratio(model, default_data):
    # Which form is faster is a benchmark (bench/bench_training.py); here, how advice is made.
    advice = advise(model, 7, TrainSettings(), default_data, rate=500.0)
    assert advice.line == 7 and advice.steps_per_s == 500.0
    assert advice.loop_ms > 0 and advice.index_add_ms > 0
    assert advice.projected == pytest.approx(500.0 * advice.loop_ms / advice.index_add_ms)
    assert step_cost(model, TrainSettings(), default_data, DC_INDEX_ADD) > 0
