"""The autograd reference loop: the learner's loop with loss.backward(), step for step."""

from __future__ import annotations

import pytest
import torch

from grader.sandbox.training.loop import compile_section, prepare, section_backward, train
from grader.training.autograd import VERSION, run_reference, train_autograd
from grader.training.records import TrainSettings


def _losses(report_into: list):
    return lambda step, elapsed, losses: report_into.extend(losses)


def test_autograd_and_the_reference_section_train_alike(program, default_data, reference_section):
    wire = TrainSettings(steps=200, decay_step=100).wire(default_data.vocab_size, 3)
    autograd, learner = [], []
    params, ended = train_autograd(
        program, wire, default_data.Xtr, default_data.Ytr, _losses(autograd)
    )
    ns = prepare(program, wire, default_data.Xtr, default_data.Ytr)
    with torch.inference_mode():
        backward = section_backward(compile_section(reference_section))
        train(program, ns, wire, backward, _losses(learner))
    assert ended.reason is None and len(autograd) == len(learner) == 200
    assert torch.allclose(torch.tensor(autograd), torch.tensor(learner), atol=1e-4)
    assert torch.allclose(params["W1"], ns["W1"], atol=1e-4)
    assert not params["W1"].requires_grad


def test_a_reference_result_is_json_ready(model, default_data):
    steps = []
    result = run_reference(
        model, default_data, TrainSettings(steps=401, decay_step=200), steps.append
    )
    assert result["version"] == VERSION and result["settings"]["steps"] == 401
    assert len(result["curve"]) == 200 and result["steps_per_s"] > 0
    assert steps[-1] == 401
    assert len(result["evaluation"]["samples"]) == 20
    assert result["evaluation"]["train_loss"] == pytest.approx(
        result["evaluation"]["val_loss"], abs=0.1
    )
