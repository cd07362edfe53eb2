"""The hints, declared once in order: each detector names a misconception behind wrong values.

A check that finds wrong values on a case asks `find(case, got, clues)`; the detectors that read
that case are tried in order (HINTS) and the first that recognises the answer answers, with a
misconception id and the facts its sentence needs. The engine gathers the clues before the checks
run and hands them down in the `Subject`: no check calls back into the grader. Adding a hint is
one entry here, its id in misconceptions.py and its sentence in feedback.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import torch

from grader import misconceptions as m
from grader.feedback import diagnose
from grader.grading.cases import LECTURE, RANDOM
from grader.misconceptions import Found

TINY = 1e-6  # a true gradient smaller than this has no sign or factor worth naming


@dataclass(frozen=True)
class Clues:
    """What the detectors read on one case: autograd's answer and, computed only when asked,
    the outputs of the exercise's listed mistakes and the gradient from only some consumers.

    `mistakes` pairs each listed mistake (as it is named) with a thunk giving its output;
    `partials` pairs the consumers left out with a thunk giving the gradient without them;
    `lecture` is autograd's answer on the lecture batch (an all-zero answer is measured by it).
    """

    expected: torch.Tensor
    lecture: torch.Tensor
    target: str = ""
    n: int = 1
    sizes: Mapping[str, int] = field(default_factory=dict)
    mistakes: tuple[tuple[Found, Callable[[], torch.Tensor | None]], ...] = ()
    partials: tuple[tuple[tuple[str, ...], Callable[[], torch.Tensor]], ...] = ()


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
    """A constant factor: Bessel's n/(n-1), or another one named by the sizes."""
    if _tiny(clues.expected):
        return None
    factor = diagnose.factor_label(got, clues.expected, clues.n, dict(clues.sizes))
    if not factor:
        return None
    return Found(m.BESSEL if factor in m.BESSEL_FACTORS else m.CONSTANT_FACTOR, (factor,))


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


def _where(got: torch.Tensor, clues: Clues) -> Found | None:
    """Which rows and columns are wrong, when nothing else fits."""
    rows, cols = diagnose.wrong_places(got, clues.expected)
    return Found(m.WRONG_VALUES, (rows, cols)) if rows else None


def _tiny(expected: torch.Tensor) -> bool:
    """Return whether the true gradient is too small for a sign or a factor to mean anything."""
    return float(expected.abs().max()) < TINY


HINTS: tuple[Detector, ...] = (
    Detector("an all-zero answer", _all_zero, (RANDOM,), same_shape=False),
    Detector("a mistake the exercise lists", _listed),
    Detector("a consumer left out, or its sign or factor", _branches),
    Detector("the opposite sign", _sign),
    Detector("a constant factor", _factor),
    Detector("gradient where the forward pass masked", _masked),
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
    for detector in HINTS:
        if case not in detector.cases or (detector.same_shape and not fits):
            continue
        if row and not detector.rows:
            continue
        found = detector.find(got.to(clues.expected.dtype) if detector.same_shape else got, clues)
        if found is not None:
            return found
    return None
