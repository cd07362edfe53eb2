"""Exercise 4's numbers: figures recorded before the MLP was written once, to float32 rounding.

A seeded 60-step run by autograd and by the reference section (the losses of every step, as the
worker reports them), the evaluation of each, and the first step's autograd gradients (what the
gradient check compares with). Recorded on the embedded default dataset with
`TrainSettings(steps=60, decay_step=40)` from the loop as it was when INIT and STEP were written
out in grader/sandbox/training/loop.py; deriving them from the scenario must not change them.

What holds bit for bit, and what only to rounding:

- The same torch build gives different float32 bits on different CPUs. ATen picks its kernels by
  instruction set (`ATEN_CPU_CAPABILITY`: default, avx2, avx512: other vector widths, FMA or not,
  other summation orders), and MKL, which does the matrix products, picks its own code path by
  the CPU's vendor and model whatever ATen was told (`MKL_CBWR=COMPATIBLE` changes the bits on
  the same machine too). Measured on an AMD EPYC with AVX2: the first loss is 3.701261281967163
  with `default`, 3.701261043548584 with `avx2`, recorded 3.701261520385742 elsewhere: one
  float32 ulp apart (2**-22 near 3.7). So recorded figures are compared within a tolerance.
- The tolerance is the float32 error bound of the widest reduction in a step, run in another
  order: a sum of K products in float32 can move by K * u of its size when reordered, u = 2**-24
  (the unit roundoff), and K = 200 (the hidden layer; the others are 30, 27 and the batch of
  32). RTOL = 200 * 2**-24 ~ 1.2e-5, about 50 ulps. The spread measured between kernels stays
  within 2 ulps (1.7e-7) over all 60 steps, evaluations and gradients, so the bound is not
  tight; and one SGD step moves the loss by 0.2 (3.70 to 3.49), so another seed, batch,
  learning rate or step order shows by far more than RTOL.
- Thread counts: intra-op threads split long reductions and matrix products into chunks, and a
  machine with more cores splits them differently. Production runs use one thread (the sandbox
  worker and the autograd subprocess set it), so these runs do too, whatever the machine has.
- On one machine, with one thread, the arithmetic is exactly reproducible: a run done twice
  gives the same bits (compared by hash), and autograd and the section compute the first loss
  from the same parameters with the same forward code, so it agrees to the last bit. Their
  later steps differ by rounding only (the section's hand-written backward sums in another
  order), within RTOL.
- The samples are compared exactly: each is drawn by a seeded generator from probabilities that
  differ by ulps between machines, which changes a character only if a uniform draw falls
  within about 1e-7 of a boundary between two characters (a chance of about 1e-5 per run).
"""

from __future__ import annotations

import hashlib
from array import array

import pytest
import torch

from grader.sandbox.training.loop import compile_section, prepare, section_backward, train
from grader.training.autograd import train_autograd
from grader.training.evaluate import evaluate
from grader.training.gradcheck import first_step
from grader.training.records import TrainSettings

SETTINGS = TrainSettings(steps=60, decay_step=40)
U = 2**-24  # float32's unit roundoff
RTOL = 200 * U  # the widest reduction of a step (200 hidden units), reordered: see above
FIRST_LOSSES = [3.701261520385742, 3.490504264831543, 3.4685075283050537, 3.419945001602173]
LAST_LOSS = 2.8629627227783203
EVALUATION = {  # train loss, val loss, the first three samples
    "autograd": (2.8460381031036377, 2.834864377975464, ("carmahxqmijhq.", "kfkjmrixrtht.",
                                                         "khkcads.")),
    "section": (2.8460381031036377, 2.8348641395568848, ("carmahxqmijhq.", "kfkjmrixrtht.",
                                                        "khkcads.")),
}  # fmt: skip
# The first step's gradients by two figures each: the norm, and the sum of |g| weighted from 1
# to 2 along the flattened tensor (so that a transpose or a permutation shows). Recorded with
# one thread on an AMD EPYC, ATEN_CPU_CAPABILITY=default.
GRADS = {
    "dC": (0.1788124258539386, 2.548647019588458),
    "dW1": (0.5929926884990028, 51.15168239654331),
    "dW2": (1.608569847762621, 111.76429147244022),
    "db2": (0.27807369770547263, 1.8588091839964573),
    "dbngain": (0.08196593363135947, 1.359937482410527),
    "dbnbias": (0.2526869510003367, 4.315399211356954),
}
# b1 comes before the batch norm, which subtracts the batch mean: db1 is zero in exact arithmetic
# and what float32 leaves is rounding noise, about 1e-8 here. Its bound is far above the noise
# and far below every real gradient of this step (the smallest, dbngain, has norm 0.08).
DB1_BOUND = 1e-6


def _sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:16]


def _figures(grad: torch.Tensor) -> tuple[float, float]:
    """Return the gradient's norm and its position-weighted L1 sum, in float64."""
    flat = grad.double().flatten()
    weights = torch.linspace(1, 2, flat.numel(), dtype=torch.float64)
    return float(flat.norm()), float((flat.abs() * weights).sum())


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Run every figure with one intra-op thread, as production does, then restore the count."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def wire(default_data):
    return SETTINGS.wire(default_data.vocab_size, default_data.block_size)


def _autograd(program, wire, data) -> tuple[list[float], dict]:
    losses = []
    params, ended = train_autograd(program, wire, data.Xtr, data.Ytr,
                                   lambda step, elapsed, got: losses.extend(got))  # fmt: skip
    assert ended.reason is None
    return losses, params


@pytest.fixture(scope="module")
def autograd_run(program, wire, default_data):
    return _autograd(program, wire, default_data)


@pytest.fixture(scope="module")
def section_run(program, wire, default_data, reference_section):
    losses, ns = [], prepare(program, wire, default_data.Xtr, default_data.Ytr)
    with torch.inference_mode():
        backward = section_backward(compile_section(reference_section))
        ended = train(program, ns, wire, backward, lambda step, elapsed, got: losses.extend(got))
    assert ended.reason is None
    return losses, {name: ns[name] for name in program.params}


@pytest.mark.parametrize("run", ["autograd", "section"])
def test_the_losses_of_every_step_are_as_recorded(run, autograd_run, section_run):
    losses, _ = autograd_run if run == "autograd" else section_run
    assert len(losses) == 60
    assert losses[:4] == pytest.approx(FIRST_LOSSES, rel=RTOL, abs=0)
    assert losses[-1] == pytest.approx(LAST_LOSS, rel=RTOL, abs=0)


def test_autograd_and_the_section_agree_to_rounding(autograd_run, section_run):
    """The first loss to the last bit (same parameters, same forward); every step to RTOL."""
    ours, theirs = autograd_run[0], section_run[0]
    assert ours[0] == theirs[0]
    assert ours == pytest.approx(theirs, rel=RTOL, abs=0)


def test_a_run_done_again_on_this_machine_is_the_same_to_the_bit(
    program, wire, default_data, autograd_run
):
    again, _ = _autograd(program, wire, default_data)
    assert _sha(array("f", again).tobytes()) == _sha(array("f", autograd_run[0]).tobytes())


@pytest.mark.parametrize("run", ["autograd", "section"])
def test_the_evaluation_is_as_recorded(model, run, autograd_run, section_run, default_data):
    _, params = autograd_run if run == "autograd" else section_run
    evaluation = evaluate(model, params, default_data, SETTINGS.seed)
    train_loss, val_loss, samples = EVALUATION[run]
    got = (evaluation.train_loss, evaluation.val_loss)
    assert got == pytest.approx((train_loss, val_loss), rel=RTOL, abs=0)
    assert evaluation.samples[:3] == samples


def test_the_first_steps_gradients_are_as_recorded(program, wire, default_data):
    _, grads = first_step(program, wire, default_data.Xtr, default_data.Ytr)
    assert set(grads) == {*GRADS, "db1"}
    for name, recorded in GRADS.items():
        assert _figures(grads[name]) == pytest.approx(recorded, rel=RTOL, abs=0), name
    assert grads["db1"].abs().max() < DB1_BOUND


def test_the_first_step_done_again_is_the_same_to_the_bit(program, wire, default_data):
    _, grads = first_step(program, wire, default_data.Xtr, default_data.Ytr)
    _, again = first_step(program, wire, default_data.Xtr, default_data.Ytr)
    assert {n: _sha(g.numpy().tobytes()) for n, g in grads.items()} == {
        n: _sha(g.numpy().tobytes()) for n, g in again.items()
    }
