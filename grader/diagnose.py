"""The maths behind feedback: compare tensors and name the misconception a wrong answer shows."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import torch

from grader import feedback
from grader.result import Cmp, Heatmap

RTOL, ATOL = 1e-5, 1e-8
TOLERANCE = (ATOL, RTOL)  # as torch.allclose applies them: |got - want| <= atol + rtol*|want|
ROUNDOFF_UNITS = 64
HEATMAP_CELLS = 20_000
NEAR_ZERO = 1e-6  # a true gradient this small is float noise around an exact zero


def tolerance(expected: torch.Tensor, drawn: bool = False) -> tuple[float, float]:
    """Return (atol, rtol): the lecture's, or for freshly drawn cases a round-off floor too.

    Random upstream gradients and other sizes change at every submission, so a correct answer
    that sums in another order must not fail on one draw: atol grows to 64 units of round-off
    of the largest expected value.
    """
    if not drawn or not expected.numel() or not expected.is_floating_point():
        return TOLERANCE
    floor = ROUNDOFF_UNITS * torch.finfo(expected.dtype).eps * float(expected.abs().max())
    return max(ATOL, floor), RTOL


def compare(name: str, got: torch.Tensor, expected: torch.Tensor, drawn: bool = False) -> Cmp:
    """Return the lecture's cmp line for got against expected (same shape)."""
    atol, rtol = tolerance(expected, drawn)
    exact = bool(torch.all(got == expected))
    approx = bool(torch.allclose(got, expected, rtol=rtol, atol=atol))
    maxdiff = float((got - expected).abs().max()) if got.numel() else 0.0
    return Cmp(name, exact, approx, maxdiff)


def worst_index(got: torch.Tensor, expected: torch.Tensor) -> tuple[int, ...]:
    """Return the index of the largest absolute difference."""
    flat = int((got - expected).abs().flatten().argmax())
    return tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), expected.shape))


def alike(got: torch.Tensor, expected: torch.Tensor) -> bool:
    """Return whether two tensors agree to a tolerance scaled by the expected values."""
    if got.shape != expected.shape:
        return False
    scale = float(expected.abs().max()) if expected.numel() else 0.0
    return bool(torch.allclose(got, expected, rtol=1e-4, atol=1e-6 * max(scale, 1e-3)))


def zero_by_coincidence(got: torch.Tensor | None, expected: torch.Tensor) -> bool:
    """Return whether got is all zeros where the true gradient is only float noise."""
    if got is None or got.shape != expected.shape or expected.numel() == 0:
        return False
    return not bool(got.any()) and float(expected.abs().max()) < NEAR_ZERO


def shape_hint(got: torch.Tensor, expected: torch.Tensor) -> str:
    """Explain a shape mismatch: a broadcast dim to sum, a dropped dim or a transpose."""
    g, e = tuple(got.shape), tuple(expected.shape)
    if got.numel() == expected.numel() and _squeezed(g) == _squeezed(e):
        right = alike(got.reshape(e), expected)
        if len(e) > len(g):
            return feedback.hint_keepdim(right)
        return feedback.hint_values_right_shape_wrong(e) if right else feedback.hint_reshape(e)
    if len(g) == len(e) == 2 and g == e[::-1]:
        return feedback.hint_transpose() if alike(got.T, expected) else ""
    dims = broadcast_dims(g, e)
    if dims is not None:
        return feedback.hint_sum_dims(dims, keepdim=len(e) == len(g))
    return ""


def _squeezed(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Drop the size-1 dimensions of a shape."""
    return tuple(s for s in shape if s != 1)


def broadcast_dims(got: tuple, expected: tuple) -> tuple[int, ...] | None:
    """Return the dims of `got` along which `expected` would have been broadcast, if any."""
    if len(expected) > len(got):
        return None
    padded = (1,) * (len(got) - len(expected)) + expected
    if any(e not in (1, g) for e, g in zip(padded, got, strict=True)):
        return None
    dims = tuple(i for i, (e, g) in enumerate(zip(padded, got, strict=True)) if e == 1 and g != 1)
    return dims or None


def value_hint(
    got: torch.Tensor,
    expected: torch.Tensor,
    mistakes: list[tuple[str, Callable[[], torch.Tensor | None]]],
    partials: list[tuple[tuple[str, ...], Callable[[], torch.Tensor]]],
    target: str,
    n: int,
) -> str:
    """Name the misconception behind a wrong answer of the right shape, if one fits."""
    for message, output in mistakes:
        produced = output()
        if produced is not None and alike(got, produced):
            return message
    for missing, partial in partials:
        if alike(got, partial()):
            return feedback.hint_missing_consumer(target, missing)
    if float(expected.abs().max()) < 1e-6:
        return ""
    if alike(-got, expected):
        return feedback.hint_sign()
    label = factor_label(got, expected, n)
    return feedback.hint_factor(label) if label else ""


def factor_label(got: torch.Tensor, expected: torch.Tensor, n: int) -> str:
    """Return the constant factor (n, n-1, n/(n-1), 2 or an inverse) relating got to expected."""
    factors = {"2": 2.0} if n < 2 else {"n": n, "n-1": n - 1, "n/(n-1)": n / (n - 1), "2": 2.0}
    for label, k in factors.items():
        if alike(got, expected * k):
            return label
        if alike(got, expected / k):
            return f"1/{label}" if "/" not in label else "(n-1)/n"
    return ""


def missing_subsets(given: tuple[str, ...]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Return (kept, missing) for each non-empty proper subset of the consumers."""
    pairs = []
    for size in range(1, len(given)):
        for kept in itertools.combinations(given, size):
            pairs.append((kept, tuple(g for g in given if g not in kept)))
    return pairs


def wrong_places(got: torch.Tensor, expected: torch.Tensor) -> tuple[tuple, tuple]:
    """Return the rows and columns (of a 2-D view) where values differ beyond tolerance."""
    bad = ~torch.isclose(got, expected, rtol=RTOL, atol=ATOL)
    bad = _as_2d(bad)
    rows = tuple(int(i) for i in bad.any(1).nonzero().flatten())
    cols = tuple(int(i) for i in bad.any(0).nonzero().flatten())
    return rows, cols


def _as_2d(t: torch.Tensor) -> torch.Tensor:
    """View a tensor as 2-D: a row for 0-D and 1-D, rows by the first dim otherwise."""
    if t.dim() <= 1:
        return t.reshape(1, -1)
    return t.reshape(t.shape[0], -1)


def heatmap(got: torch.Tensor, expected: torch.Tensor, case: str = "lecture") -> Heatmap | None:
    """Return the arrays for a learner / autograd / difference picture of a 1-D or 2-D tensor."""
    if got.dim() not in (1, 2) or got.numel() > HEATMAP_CELLS:
        return None
    rows, cols = wrong_places(got, expected)
    a, b = _as_2d(got).double(), _as_2d(expected).double()
    return Heatmap(a.tolist(), b.tolist(), (a - b).tolist(), rows, cols, case)
