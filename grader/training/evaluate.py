"""After training (trusted code, in this process): calibrate batchnorm, score, sample, measure.

The lecture's last cells, on parameters that came back from a worker as raw tensors. The forward
pass is the model's own lines (grader/training/model.py): calibration runs them on the whole
training set up to batchnorm's statistics, and scoring and sampling run them with those
statistics given instead of computed from the batch.

    >>> evaluation = evaluate(lecture_model(), params, dataset, seed=2147483647)
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
from grader.training.model import BATCH_STATS, Model, execute
from grader.training.records import Evaluation, LoopAdvice, TrainSettings

SAMPLES = 20
SAMPLE_OFFSET = 10  # the lecture samples with torch.Generator().manual_seed(2147483647 + 10)
MAX_LENGTH = 50  # a broken model may never pick '.'; stop a sample there


@torch.no_grad()
def calibrate(m: Model, p: dict, X: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Return batchnorm's statistics over the whole training set (the lecture's cell)."""
    ns = {"torch": torch, "F": F, **p, "Xb": X, "n": X.shape[0]}
    return tuple(execute(m.calibration(), ns, BATCH_STATS).values())


@torch.no_grad()
def forward(m: Model, p: dict, bn: tuple, X: torch.Tensor, output: str, Y=None) -> torch.Tensor:
    """Return `output` of the forward pass on contexts X, with batchnorm's calibrated statistics."""
    ns = {"torch": torch, "F": F, **p, **dict(zip(BATCH_STATS, bn, strict=True))}
    ns.update(Xb=X, Yb=Y, n=X.shape[0])
    return execute(m.inference(output), ns, (output,))[output]


def split_loss(m: Model, p: dict, bn: tuple, X: torch.Tensor, Y: torch.Tensor) -> float:
    """Return the forward pass's loss on one split."""
    return forward(m, p, bn, X, "loss", Y).item()


@torch.no_grad()
def sample(m: Model, p: dict, bn: tuple, itos: dict, block_size: int, seed: int) -> tuple[str, ...]:
    """Return SAMPLES names drawn as the lecture does, from a generator seeded seed + 10."""
    g = torch.Generator().manual_seed(seed + SAMPLE_OFFSET)
    names = []
    for _ in range(SAMPLES):
        out, context = [], [0] * block_size
        while len(out) < MAX_LENGTH:
            logits = forward(m, p, bn, torch.tensor([context]), "logits")
            ix = torch.multinomial(F.softmax(logits, dim=1), num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0:
                break
        names.append("".join(itos[i] for i in out))
    return tuple(names)


def evaluate(m: Model, p: dict, dataset, seed: int) -> Evaluation | None:
    """Calibrate, score train and val, and sample; None if a parameter is not finite."""
    if not all(bool(torch.isfinite(t).all()) for t in p.values()):
        return None
    bn = calibrate(m, p, dataset.Xtr)
    train = split_loss(m, p, bn, dataset.Xtr, dataset.Ytr)
    val = split_loss(m, p, bn, dataset.Xdev, dataset.Ydev)
    if not (math.isfinite(train) and math.isfinite(val)):
        return None
    samples = sample(m, p, bn, dataset.itos, dataset.block_size, seed)
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
    """Return the section from the course's reference answers, `dC` zeroed, to time."""
    from grader.course import discover  # exercise files load only when advice is given

    catalog = discover()
    answers = {part: catalog.get(part).solution() for part, _ in section.PARTS}
    answers["dC"] = "dC = torch.zeros_like(C)"
    return section.compose(answers, answers)


def step_cost(m: Model, settings: TrainSettings, dataset, dc: str) -> float:
    """Return the seconds per training step of the lecture's loop with this form of dC."""
    wire = replace(settings, steps=TIMED_STEPS).wire(dataset.vocab_size, dataset.block_size)
    code = compile(lecture_section() + dc, "<lecture>", "exec", dont_inherit=True)
    seen, program = {}, m.program()
    ns = prepare(program, wire, dataset.Xtr, dataset.Ytr)
    with torch.inference_mode():  # as in the training worker
        backward, report = section_backward(code), lambda step, t, _: seen.update(step=step, t=t)
        train(program, ns, wire, backward, report)
    return seen["t"] / seen["step"]


def advise(m: Model, line: int, settings: TrainSettings, dataset, rate: float) -> LoopAdvice:
    """Return how much faster a run at `rate` steps/s with a dC loop would be with index_add_.

    Whole steps of the lecture's loop are timed with each form of dC, back to back, and the
    run's own speed is scaled by their ratio.
    """
    step_cost(m, settings, dataset, DC_INDEX_ADD)  # warm up
    loop = step_cost(m, settings, dataset, DC_LOOP)
    add = step_cost(m, settings, dataset, DC_INDEX_ADD)
    return LoopAdvice(line, loop * 1e3, add * 1e3, rate, rate * loop / add)
