"""After training (trusted code, in this process): calibrate batchnorm, score, sample, measure.

The lecture's last cells, on parameters that came back from a worker as raw tensors:

    >>> evaluation = evaluate(params, dataset, seed=2147483647)
    >>> evaluation.train_loss, evaluation.val_loss, evaluation.samples[:3]
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace

import torch
import torch.nn.functional as F

from grader.sandbox.training import prepare, section_backward, train
from grader.training import section
from grader.training.records import Evaluation, LoopAdvice, TrainSettings

SAMPLES = 20
SAMPLE_OFFSET = 10  # the lecture samples with torch.Generator().manual_seed(2147483647 + 10)
MAX_LENGTH = 50  # a broken model may never pick '.'; stop a sample there


@torch.no_grad()
def calibrate(p: dict, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Return batchnorm's mean and variance over the whole training set (the lecture's cell)."""
    emb = p["C"][X]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ p["W1"] + p["b1"]
    return hpreact.mean(0, keepdim=True), hpreact.var(0, keepdim=True, unbiased=True)


@torch.no_grad()
def logits_of(p: dict, bn: tuple, X: torch.Tensor) -> torch.Tensor:
    """Return the logits for contexts X, with batchnorm's calibrated statistics."""
    bnmean, bnvar = bn
    emb = p["C"][X]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ p["W1"] + p["b1"]
    hpreact = p["bngain"] * (hpreact - bnmean) * (bnvar + 1e-5) ** -0.5 + p["bnbias"]
    h = torch.tanh(hpreact)
    return h @ p["W2"] + p["b2"]


def split_loss(p: dict, bn: tuple, X: torch.Tensor, Y: torch.Tensor) -> float:
    """Return the mean cross-entropy loss on one split."""
    return F.cross_entropy(logits_of(p, bn, X), Y).item()


@torch.no_grad()
def sample(p: dict, bn: tuple, itos: dict, block_size: int, seed: int) -> tuple[str, ...]:
    """Return SAMPLES names drawn as the lecture does, from a generator seeded seed + 10."""
    g = torch.Generator().manual_seed(seed + SAMPLE_OFFSET)
    names = []
    for _ in range(SAMPLES):
        out, context = [], [0] * block_size
        while len(out) < MAX_LENGTH:
            probs = F.softmax(logits_of(p, bn, torch.tensor([context])), dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0:
                break
        names.append("".join(itos[i] for i in out))
    return tuple(names)


def evaluate(p: dict, dataset, seed: int) -> Evaluation | None:
    """Calibrate, score train and val, and sample; None if a parameter is not finite."""
    if not all(bool(torch.isfinite(t).all()) for t in p.values()):
        return None
    bn = calibrate(p, dataset.Xtr)
    train = split_loss(p, bn, dataset.Xtr, dataset.Ytr)
    val = split_loss(p, bn, dataset.Xdev, dataset.Ydev)
    if not (math.isfinite(train) and math.isfinite(val)):
        return None
    samples = sample(p, bn, dataset.itos, dataset.block_size, seed)
    return Evaluation(train, val, samples)


def curve(losses: torch.Tensor, done: int, bucket: int) -> tuple[float, ...]:
    """Return the mean log10 loss of each whole bucket of steps (the lecture's lossi plot)."""
    whole = done - done % bucket
    if whole <= 0:
        return ()
    means = losses[:whole].double().log10().view(-1, bucket).mean(1)
    return tuple(means.tolist())


DC_LOOP = """\
for k in range(Xb.shape[0]):
    for j in range(Xb.shape[1]):
        ix = Xb[k, j]
        dC[ix] += demb[k, j]
"""
DC_INDEX_ADD = "dC.index_add_(0, Xb.view(-1), demb.view(-1, demb.shape[-1]))\n"
TIMED_STEPS = 150


@functools.cache
def lecture_section() -> str:
    """Return the section from the reference answers in solutions/, `dC` zeroed, to time."""
    from grader.exercises import discover  # exercise files load only when advice is given

    catalog = discover()
    answers = {part: catalog.get(part).solution() for part, _ in section.PARTS}
    answers["dC"] = "dC = torch.zeros_like(C)"
    return section.compose(answers, answers)


def step_cost(settings: TrainSettings, dataset, dc: str) -> float:
    """Return the seconds per training step of the lecture's loop with this form of dC."""
    wire = replace(settings, steps=TIMED_STEPS).wire(dataset.vocab_size, dataset.block_size)
    code = compile(lecture_section() + dc, "<lecture>", "exec", dont_inherit=True)
    seen = {}
    ns = prepare(wire, dataset.Xtr, dataset.Ytr)
    with torch.inference_mode():  # as in the training worker
        train(ns, wire, section_backward(code), lambda step, t, _: seen.update(step=step, t=t))
    return seen["t"] / seen["step"]


def advise(line: int, settings: TrainSettings, dataset, rate: float) -> LoopAdvice:
    """Return how much faster a run at `rate` steps/s with a dC loop would be with index_add_.

    Whole steps of the lecture's loop are timed with each form of dC, back to back, and the
    run's own speed is scaled by their ratio.
    """
    step_cost(settings, dataset, DC_INDEX_ADD)  # warm up
    loop = step_cost(settings, dataset, DC_LOOP)
    add = step_cost(settings, dataset, DC_INDEX_ADD)
    return LoopAdvice(line, loop * 1e3, add * 1e3, rate, rate * loop / add)
