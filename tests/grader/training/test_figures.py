"""Exercise 4's numbers, bit for bit: figures recorded before the MLP was written once.

A seeded 60-step run by autograd and by the reference section (the losses of every step, as
the worker reports them), the evaluation of each, and the first step's autograd gradients
(what the gradient check compares with). Recorded on the embedded default dataset with
`TrainSettings(steps=60, decay_step=40)` from the loop as it was when INIT and STEP were
written out in grader/sandbox/training/loop.py; deriving them from the scenario must not
change one bit.
"""

from __future__ import annotations

import hashlib
from array import array

import pytest
import torch

from grader.sandbox.training.loop import PARAMS, compile_section, prepare, section_backward, train
from grader.training.autograd import train_autograd
from grader.training.evaluate import evaluate
from grader.training.gradcheck import first_step
from grader.training.records import TrainSettings

SETTINGS = TrainSettings(steps=60, decay_step=40)
FIRST_LOSSES = [3.701261520385742, 3.490504264831543, 3.4685075283050537, 3.419945001602173]
LAST_LOSS = 2.8629627227783203
LOSSES_SHA = {"autograd": "f64613ce22c8bf05", "section": "5e1886e133221a24"}
EVALUATION = {  # train loss, val loss, the first three samples
    "autograd": (2.8460381031036377, 2.834864377975464, ("carmahxqmijhq.", "kfkjmrixrtht.",
                                                         "khkcads.")),
    "section": (2.8460381031036377, 2.8348641395568848, ("carmahxqmijhq.", "kfkjmrixrtht.",
                                                        "khkcads.")),
}  # fmt: skip
GRADS_SHA = {
    "dC": "c518963d192fe30f",
    "dW1": "b5792ad4c97ba9a7",
    "db1": "4d2d72d48cd3d68a",
    "dW2": "ef5ac62974236ee7",
    "db2": "aa355ee421623e37",
    "dbngain": "4445cea2c4fac26c",
    "dbnbias": "0cd331e6e6c41fe0",
}


def _sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:16]


@pytest.fixture(scope="module")
def wire(default_data):
    return SETTINGS.wire(default_data.vocab_size, default_data.block_size)


@pytest.fixture(scope="module")
def autograd_run(program, wire, default_data):
    losses = []
    params, ended = train_autograd(program, wire, default_data.Xtr, default_data.Ytr,
                                   lambda step, elapsed, got: losses.extend(got))  # fmt: skip
    assert ended.reason is None
    return losses, params


@pytest.fixture(scope="module")
def section_run(program, wire, default_data, reference_section):
    losses, ns = [], prepare(program, wire, default_data.Xtr, default_data.Ytr)
    with torch.inference_mode():
        backward = section_backward(compile_section(reference_section))
        ended = train(program, ns, wire, backward, lambda step, elapsed, got: losses.extend(got))
    assert ended.reason is None
    return losses, {name: ns[name] for name in PARAMS}


@pytest.mark.parametrize("run", ["autograd", "section"])
def test_the_losses_of_every_step_are_as_recorded(run, autograd_run, section_run):
    losses, _ = autograd_run if run == "autograd" else section_run
    assert losses[:4] == FIRST_LOSSES and losses[-1] == LAST_LOSS and len(losses) == 60
    assert _sha(array("f", losses).tobytes()) == LOSSES_SHA[run]


@pytest.mark.parametrize("run", ["autograd", "section"])
def test_the_evaluation_is_as_recorded(model, run, autograd_run, section_run, default_data):
    _, params = autograd_run if run == "autograd" else section_run
    evaluation = evaluate(model, params, default_data, SETTINGS.seed)
    train_loss, val_loss, samples = EVALUATION[run]
    assert (evaluation.train_loss, evaluation.val_loss) == (train_loss, val_loss)
    assert evaluation.samples[:3] == samples


def test_the_first_steps_gradients_are_as_recorded(program, wire, default_data):
    _, grads = first_step(program, wire, default_data.Xtr, default_data.Ytr)
    assert {name: _sha(g.numpy().tobytes()) for name, g in grads.items()} == GRADS_SHA
