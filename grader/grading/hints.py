"""The hints' detectors, declared once in order: each names a misconception behind wrong values.

A check that finds wrong values on a case asks `find(case, got, clues)`; the detectors that read
that case are tried in order (DETECTORS) and the first that recognises the answer answers, with
a misconception id and the facts its sentence needs. The engine gathers the clues before the
checks run and hands them down in the `Subject` (evidence.py): no check calls back into the
grader. The simplest detectors are here; those that rebuild a likely wrong answer from the
tensors this process holds are in rebuilt.py, those that check a rewrite of the learner's code
in the sandbox in rewritten.py. Adding a detector is one entry here (its maths in
grader/feedback/detectors/), its id in misconceptions.py and its sentence in
grader/feedback/voice/.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import torch

from grader import misconceptions as m
from grader.feedback import detectors, diagnose
from grader.grading import rebuilt, rewritten
from grader.grading.cases import LECTURE, RANDOM
from grader.grading.evidence import Clues
from grader.grading.rebuilt import tiny as _tiny
from grader.misconceptions import Found

log = logging.getLogger("grader")


@dataclass(frozen=True)
class Detector:
    """One hint: what it looks for, its function, the cases it reads, whether it reads only an
    answer of the expected shape (converted to autograd's dtype) and whether it speaks on a row
    of the lecture's cmp table too (Exercise 4's check), not only on an exercise."""

    looks_for: str
    find: Callable[[torch.Tensor | None, Clues], Found | None]
    cases: tuple[str, ...] = (LECTURE, RANDOM)
    same_shape: bool = True
    rows: bool = True


def _all_zero(got: torch.Tensor | None, clues: Clues) -> Found | None:
    """An all-zero answer where the true gradient is only almost zero on the lecture batch."""
    if got is None or not got.numel() or bool(got.any()):
        return None
    return Found(m.ALL_ZERO, (float(clues.lecture.abs().max()),))


def _listed(got: torch.Tensor, clues: Clues) -> Found | None:
    """One of the exercise's listed mistakes, recognised by its output on the same inputs."""
    for found, output in clues.mistakes:
        produced = output()
        if produced is not None and diagnose.alike(got, produced):
            return found
    return None


def _branches(got: torch.Tensor, clues: Clues) -> Found | None:
    """A consumer's contribution left out, or with a wrong sign or factor."""
    for missing, partial in clues.partials:
        rest = partial()
        if diagnose.alike(got, rest):
            return Found(m.MISSING_BRANCH, (clues.target, missing))
        if len(missing) == 1:
            found = _branch(got - rest, clues.expected - rest, missing[0], clues)
            if found is not None:
                return found
    return None


def _branch(got: torch.Tensor, expected: torch.Tensor, consumer: str, clues: Clues):
    """A wrong sign or factor on the contribution through one consumer only."""
    if _tiny(expected) or diagnose.alike(got, expected):
        return None
    if diagnose.alike(-got, expected):
        return Found(m.BRANCH_SIGN_FLIPPED, (consumer,))
    factor = diagnose.factor_label(got, expected, clues.n, dict(clues.sizes))
    return Found(m.BRANCH_FACTOR, (consumer, factor)) if factor else None


def _sign(got: torch.Tensor, clues: Clues) -> Found | None:
    """The right size with the opposite sign."""
    expected = clues.expected
    return Found(m.SIGN_FLIPPED) if not _tiny(expected) and diagnose.alike(-got, expected) else None


def _factor(got: torch.Tensor, clues: Clues) -> Found | None:
    """A constant factor: the power rule's exponent, Bessel's n/(n-1), or another one named by
    the sizes."""
    if _tiny(clues.expected):
        return None
    power = _power(got, clues)
    if power is not None:
        return Found(m.POWER_RULE, (power,))
    kept = _power_kept(got, clues)
    if kept is not None:
        return Found(m.POWER_KEPT, (kept,))
    factor = diagnose.factor_label(got, clues.expected, clues.n, dict(clues.sizes))
    if not factor:
        return None
    return Found(m.BESSEL if factor in m.BESSEL_FACTORS else m.CONSTANT_FACTOR, (factor,))


def _power(got: torch.Tensor, clues: Clues) -> float | None:
    """The exponent of the one consumer's power that the answer's factor leaves out."""
    if len(clues.lines) != 1:
        return None
    power = detectors.exponent(next(iter(clues.lines.values())))
    dot = float((clues.expected * clues.expected).sum())
    ratio = float((got * clues.expected).sum()) / dot if dot else float("nan")
    right = alike_scaled(got, clues.expected, ratio)
    return power if right and detectors.power_slip(ratio, power) else None


def _power_kept(got: torch.Tensor, clues: Clues) -> float | None:
    """The exponent of the one consumer's power that the answer brought down but kept."""
    if len(clues.lines) != 1:
        return None
    consumer, line = next(iter(clues.lines.items()))
    power, output = detectors.exponent(line), clues.values.get(consumer)
    if output is None or consumer not in clues.upstream:
        return None
    return power if detectors.power_kept(got, output, clues.upstream[consumer], power) else None


def alike_scaled(got: torch.Tensor, expected: torch.Tensor, ratio: float) -> bool:
    """Return whether got is `ratio` times expected."""
    return ratio == ratio and diagnose.alike(got, expected * ratio)


def _masked(got: torch.Tensor, clues: Clues) -> Found | None:
    """Right everywhere but where the true gradient is exactly zero (values the forward pass
    overwrote, as a causal mask's `masked_fill` does)."""
    expected = clues.expected
    if _tiny(expected):
        return None
    zero = expected == 0
    stray = int((zero & (got != 0)).sum())
    right = diagnose.alike(got.masked_fill(zero, 0.0), expected)
    return Found(m.MASK_IGNORED, (stray,)) if stray and bool((~zero).any()) and right else None


ALMOST_EVERY = 0.9  # the share of entries that must differ for "almost every entry"


def _where(got: torch.Tensor, clues: Clues) -> Found | None:
    """Where the values differ, measured, when nothing else fits: the share of entries, the
    rows and columns, and where they sit in their rows (each row's target or largest entry);
    when almost every entry differs, the formula is wrong, and "not an index" is said only
    where the slips of indexing were tried."""
    measured = diagnose.spread(got, clues.expected)
    if not measured.rows:
        return None
    if measured.share >= ALMOST_EVERY:
        return Found(m.FORMULA_WRONG, (measured.share, _index_tried(clues)))
    bad = diagnose.as_2d(diagnose.differing(got, clues.expected))
    at = detectors.entries_at(bad, clues.values, clues.target) if got.dim() == 2 else ()
    said = (measured.rows, measured.cols, measured.share, measured.per_row, at)
    return Found(m.WRONG_VALUES, said)


def _index_tried(clues: Clues) -> bool:
    """Return whether the slips of indexing were tried on this gradient: with the targets, or
    through an embedding's lookup."""
    values = {k: v for k, v in clues.values.items() if not clues.scope or k in clues.scope}
    if detectors.index_applies(clues.expected, values):
        return True
    return any(detectors.gather_index(line, clues.target) for line in clues.lines.values())


DETECTORS: tuple[Detector, ...] = (
    Detector("an all-zero answer", _all_zero, (RANDOM,), same_shape=False),
    Detector("a mistake the exercise lists", _listed),
    Detector("a consumer left out, or its sign or factor", _branches),
    Detector("a bracket that precedence left out", rewritten.precedence),
    Detector("an answer of zeros where the gradient is not", rebuilt.zeros, (LECTURE,)),
    Detector("a fused formula's term dropped, negated or rescaled", rebuilt.terms),
    Detector("a slip of indexing with the targets", rebuilt.indexing),
    Detector("the wrong tensor beside the targets' one-hot", rebuilt.swapped),
    Detector("an embedding's gradient routed to the wrong rows", rebuilt.routing),
    Detector("the opposite sign", _sign),
    Detector("a neighbouring step's factor", rebuilt.neighbour),
    Detector("a constant factor", _factor),
    Detector("gradient where the forward pass masked", _masked),
    Detector("a fused formula summed over the wrong dim", rebuilt.reduction_dim),
    Detector("the product of two batch sums", rebuilt.sums),
    Detector("a softmax over the wrong dim", rebuilt.softmax_dim),
    Detector("a wrong local derivative, or none", rebuilt.local),
    Detector("a branch's local derivative in part", rebuilt.partial),
    Detector("wrong values at the targets' entries only", rebuilt.targets_only),
    Detector("a tensor's factor left out or added", rebuilt.missing_factor),
    Detector("the rows and columns that are wrong", _where, (LECTURE,), rows=False),
)


def find(
    case: str, got: torch.Tensor | None, clues: Clues | None, row: bool = False
) -> Found | None:
    """Return the first misconception a detector reading this case recognises, if any."""
    if clues is None:
        return None
    fits = got is not None and got.shape == clues.expected.shape
    fits = fits and bool(torch.isfinite(got).all())  # nan has no sign or factor to name
    for detector in DETECTORS:
        if case not in detector.cases or (detector.same_shape and not fits):
            continue
        if row and not detector.rows:
            continue
        found = _safely(
            detector, got.to(clues.expected.dtype) if detector.same_shape else got, clues
        )
        if found is not None:
            return found
    return None


def _safely(detector: Detector, got: torch.Tensor | None, clues: Clues) -> Found | None:
    """Run one detector; one that fails is logged and says nothing (the verdict stands)."""
    try:
        return detector.find(got, clues)
    except Exception:
        log.exception("the hint for %s failed", detector.looks_for)
        return None
