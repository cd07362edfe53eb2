"""The hints' detectors, declared once in order: each names a misconception behind wrong values.

A check that finds wrong values on a case asks `find(case, got, clues)`; the detectors that read
that case are tried in order (DETECTORS) and the first that recognises the answer answers, with
a misconception id and the facts its sentence needs. The engine gathers the clues before the
checks run and hands them down in the `Subject`: no check calls back into the grader. Adding a
detector is one entry here (its maths in grader/feedback/detectors/ when it builds a candidate),
its id in misconceptions.py and its sentence in grader/feedback/voice/.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import torch

from grader import misconceptions as m
from grader.feedback import detectors, diagnose
from grader.grading.cases import LECTURE, RANDOM
from grader.misconceptions import Found

log = logging.getLogger("grader")
TINY = 1e-6  # a true gradient smaller than this has no sign or factor worth naming


@dataclass(frozen=True)
class Clues:
    """What the detectors read on one case: autograd's answer and, computed only when asked,
    the outputs of the exercise's listed mistakes and the gradient from only some consumers.

    `mistakes` pairs each listed mistake (as it is named) with a thunk giving its output;
    `partials` pairs the consumers left out with a thunk giving the gradient without them;
    `lecture` is autograd's answer on the lecture batch (an all-zero answer is measured by it).
    `values` are the case's forward values, `upstream` the consumers' gradients by name and
    `lines` their forward lines; `terms` gives a fused formula's terms, one per path through a
    batch statistic (empty for a one-line exercise); `reduced` and `stat_dims` give the dims the
    answer's reductions and the path's statistics name.
    """

    expected: torch.Tensor
    lecture: torch.Tensor
    target: str = ""
    n: int = 1
    sizes: Mapping[str, int] = field(default_factory=dict)
    mistakes: tuple[tuple[Found, Callable[[], torch.Tensor | None]], ...] = ()
    partials: tuple[tuple[tuple[str, ...], Callable[[], torch.Tensor]], ...] = ()
    values: Mapping[str, torch.Tensor] = field(default_factory=dict)
    upstream: Mapping[str, torch.Tensor] = field(default_factory=dict)
    lines: Mapping[str, str] = field(default_factory=dict)
    terms: Callable[[], tuple[tuple[str, torch.Tensor], ...]] = tuple
    reduced: Callable[[], tuple[int, ...]] = tuple  # the dims the answer's code reduces over
    stat_dims: Callable[[], tuple[int, ...]] = tuple  # the dims the path's lines reduce over


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


def _one_branch(clues: Clues, got: torch.Tensor):
    """Yield (consumer, its upstream gradient, the answer's and autograd's contributions
    through it): the whole answer for one consumer, else the rest taken off, one at a time."""
    if len(clues.upstream) == 1:
        consumer, upstream = next(iter(clues.upstream.items()))
        yield consumer, upstream, got, clues.expected
        return
    for missing, partial in clues.partials:
        if len(missing) == 1 and missing[0] in clues.upstream:
            rest = partial()
            yield missing[0], clues.upstream[missing[0]], got - rest, clues.expected - rest


def _local(got: torch.Tensor, clues: Clues) -> Found | None:
    """The upstream gradient times a wrong local derivative (or none), summed like the
    gradient: the output for the input, the wrong factor, sigmoid's for tanh's."""
    if _tiny(clues.expected):
        return None
    for consumer, upstream, mine, theirs in _one_branch(clues, got):
        line = clues.lines.get(consumer, consumer)
        if detectors.local_only(mine, theirs, upstream):
            return Found(m.LOCAL_ONLY, (f"d{consumer}",))
        found = detectors.local_derivative(mine, theirs, clues.values, upstream)
        if found is None:
            continue
        if found.twice:
            return Found(m.DERIVATIVE_TWICE, (f"d{consumer}", found.right, line))
        if found.used == "1":
            return Found(m.NO_LOCAL_DERIVATIVE, (f"d{consumer}", line, found.right))
        return Found(m.WRONG_LOCAL_DERIVATIVE, (f"d{consumer}", found.used, line, found.right))
    return None


def _indexing(got: torch.Tensor, clues: Clues) -> Found | None:
    """The targets' gradient scattered with `[:, Yb]`, `[Yb]`, to every column or alone."""
    found = detectors.index_slip(got, clues.expected, clues.values)
    return Found(m.INDEX_TARGETS, found) if found else None


def _targets_only(got: torch.Tensor, clues: Clues) -> Found | None:
    """Right everywhere but at the targets' entries (`= -1` written for `-= 1`)."""
    found = detectors.target_entries(got, clues.expected, clues.values)
    return Found(m.TARGET_ENTRIES, (f"d{clues.target}", found)) if found else None


def _zeros(got: torch.Tensor, clues: Clues) -> Found | None:
    """An answer of zeros where the true gradient is not: nothing was written into it."""
    if _tiny(clues.expected):
        return None
    return Found(m.ZEROS_ONLY) if detectors.zeros_only(got, clues.expected) else None


def _swapped(got: torch.Tensor, clues: Clues) -> Found | None:
    """A formula with the targets' one-hot written with the wrong tensor (`logprobs`)."""
    found = detectors.swapped_tensor(got, clues.expected, clues.values)
    return Found(m.WRONG_TENSOR, found) if found else None


def _terms(got: torch.Tensor, clues: Clues) -> Found | None:
    """A fused formula with one of its terms dropped, negated or rescaled (Bessel's factor
    misplaced); all the statistics' terms dropped is treating them as constants."""
    terms = clues.terms()
    factors = diagnose.factors(clues.n, dict(clues.sizes))
    wrong = detectors.terms_wrong(got, terms, factors)
    if not wrong:
        return None
    stats = tuple(name for name, _ in terms[1:])
    dropped = tuple(t.term for t in wrong if t.label == "0")
    if len(stats) > 1 and set(dropped) >= set(stats) and len(wrong) == len(dropped):
        return Found(m.STATS_CONSTANT, (tuple(s.strip("`") for s in stats),))
    return Found(m.FUSED_TERM, (wrong,))


def _reduction_dim(got: torch.Tensor, clues: Clues) -> Found | None:
    """A fused formula that sums over another dim than the forward pass's statistics."""
    ndim = clues.expected.dim()
    if not ndim or _tiny(clues.expected):
        return None
    right = [d for d in clues.stat_dims() if -ndim <= d < ndim]
    kept = {d % ndim for d in right}
    wrong = [d for d in clues.reduced() if -ndim <= d < ndim and d % ndim not in kept]
    terms = clues.terms() if wrong and right else ()
    if not terms:
        return None
    shape, sizes = tuple(clues.expected.shape), dict(clues.sizes)
    stats = tuple(name.strip("`") for name, _ in terms[1:])
    said = [(d, diagnose.label(shape[d], sizes)) for d in (wrong[0], right[0])]
    return Found(m.FUSED_WRONG_DIM, (*said[0], *said[1], stats))


def _sums(got: torch.Tensor, clues: Clues) -> Found | None:
    """A weight's gradient as the product of two batch sums."""
    found = detectors.sums_multiplied(got, clues.values, clues.upstream)
    if not found:
        return None
    flat = clues.values[found[0]].dim() > 2  # a time or group dim to flatten with the batch
    return Found(m.SUMS_MULTIPLIED, (found[0], f"d{found[1]}", flat))


def _softmax_dim(got: torch.Tensor, clues: Clues) -> Found | None:
    """Cross-entropy's `softmax - one-hot` with the softmax over the wrong dim."""
    found = detectors.softmax_dim(got, clues.expected, clues.values)
    return Found(m.SOFTMAX_WRONG_DIM, found) if found else None


def _missing_factor(got: torch.Tensor, clues: Clues) -> Found | None:
    """The gradient without a factor that is a tensor in scope (`rstd`), or with one more."""
    found = detectors.missing_factor(got, clues.expected, clues.values)
    return Found(m.MISSING_FACTOR, found) if found else None


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
    """Which rows and columns are wrong, when nothing else fits and they are few; when most
    are wrong, the formula is."""
    rows, cols = diagnose.wrong_places(got, clues.expected)
    if not rows:
        return None
    shape = diagnose.as_2d(clues.expected).shape
    if len(rows) > shape[0] / 4 and len(cols) > shape[1] / 4:
        return Found(m.FORMULA_WRONG)
    return Found(m.WRONG_VALUES, (rows, cols))


def _tiny(expected: torch.Tensor) -> bool:
    """Return whether the true gradient is too small for a sign or a factor to mean anything."""
    return float(expected.abs().max()) < TINY


DETECTORS: tuple[Detector, ...] = (
    Detector("an all-zero answer", _all_zero, (RANDOM,), same_shape=False),
    Detector("a mistake the exercise lists", _listed),
    Detector("a consumer left out, or its sign or factor", _branches),
    Detector("an answer of zeros where the gradient is not", _zeros, (LECTURE,)),
    Detector("a slip of indexing with the targets", _indexing),
    Detector("the wrong tensor beside the targets' one-hot", _swapped),
    Detector("the opposite sign", _sign),
    Detector("a constant factor", _factor),
    Detector("gradient where the forward pass masked", _masked),
    Detector("a fused formula's term dropped, negated or rescaled", _terms),
    Detector("a fused formula summed over the wrong dim", _reduction_dim),
    Detector("the product of two batch sums", _sums),
    Detector("a softmax over the wrong dim", _softmax_dim),
    Detector("a wrong local derivative, or none", _local),
    Detector("wrong values at the targets' entries only", _targets_only),
    Detector("a tensor's factor left out or added", _missing_factor),
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
