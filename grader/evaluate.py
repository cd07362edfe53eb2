"""After training (trusted code, in this process): calibrate batchnorm, score, sample, measure.

The lecture's last cells, on parameters that came back from a worker as raw tensors:

    >>> evaluation = evaluate(params, dataset, seed=2147483647)
    >>> evaluation.train_loss, evaluation.val_loss, evaluation.samples[:3]
"""

from __future__ import annotations

import math
import time

import torch
import torch.nn.functional as F

from grader.trainrecords import Evaluation, LoopAdvice, TrainSettings

SAMPLES = 20
SAMPLE_OFFSET = 10  # the lecture samples with torch.Generator().manual_seed(2147483647 + 10)
MAX_LENGTH = 50  # a broken model may never pick '.'; stop a sample there
REPEATS = 50


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


@torch.inference_mode()  # as in the training worker
def loop_cost(settings: TrainSettings, vocab_size: int, block_size: int) -> tuple[float, float]:
    """Return the seconds per step of the lecture's dC double loop and of index_add_, measured."""
    g = torch.Generator().manual_seed(0)
    n, e = settings.batch_size, settings.n_embd
    Xb = torch.randint(0, vocab_size, (n, block_size), generator=g)
    demb = torch.randn((n, block_size, e), generator=g)
    C = torch.zeros((vocab_size, e))
    return _timed(_double_loop, C, Xb, demb), _timed(_index_add, C, Xb, demb)


def _double_loop(C: torch.Tensor, Xb: torch.Tensor, demb: torch.Tensor) -> torch.Tensor:
    """The lecture's dC: a Python loop over every position of the batch."""
    dC = torch.zeros_like(C)
    for k in range(Xb.shape[0]):
        for j in range(Xb.shape[1]):
            ix = Xb[k, j]
            dC[ix] += demb[k, j]
    return dC


def _index_add(C: torch.Tensor, Xb: torch.Tensor, demb: torch.Tensor) -> torch.Tensor:
    """dC in one call: index_add_ on the flattened indices and gradients."""
    dC = torch.zeros_like(C)
    return dC.index_add_(0, Xb.view(-1), demb.view(-1, demb.shape[-1]))


def _timed(fn, *args) -> float:
    """Return the best of three averages of REPEATS calls, in seconds per call."""
    fn(*args)
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(REPEATS):
            fn(*args)
        best = min(best, (time.perf_counter() - start) / REPEATS)
    return best


def advise(line: int, settings: TrainSettings, sizes: tuple[int, int], rate: float) -> LoopAdvice:
    """Return what index_add_ would save a run that trained at `rate` steps/s with a loop."""
    loop, add = loop_cost(settings, *sizes)
    per_step = max(1.0 / rate - (loop - add), 1e-9)
    return LoopAdvice(line, loop * 1e3, add * 1e3, rate, 1.0 / per_step)
