"""The maths behind feedback: compare tensors and name the misconception a wrong answer shows."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch

from grader.course import TOLERANCE
from grader.result import Cmp, Heatmap

ATOL, RTOL = TOLERANCE
ROUNDOFF_UNITS = 64
HEATMAP_CELLS = 20_000
NEAR_ZERO = 1e-6  # a true gradient this small is float noise around an exact zero
NOISE_UNITS = 1024  # round-off units of the largest upstream value: below it, only noise


def tolerance(
    expected: torch.Tensor, drawn: bool = False, base: tuple[float, float] | None = None
) -> tuple[float, float]:
    """Return (atol, rtol): the exercise's (or the lecture's), for drawn cases with a floor.

    Random upstream gradients and other sizes change at every submission, so a correct answer
    that sums in another order must not fail on one draw: atol grows to 64 units of round-off
    of the largest expected value.
    """
    atol, rtol = base or TOLERANCE
    if not drawn or not expected.numel() or not expected.is_floating_point():
        return atol, rtol
    floor = ROUNDOFF_UNITS * torch.finfo(expected.dtype).eps * float(expected.abs().max())
    return max(atol, floor), rtol


def compare(
    name: str,
    got: torch.Tensor,
    expected: torch.Tensor,
    drawn: bool = False,
    base: tuple[float, float] | None = None,
) -> Cmp:
    """Return the lecture's cmp line for got against expected (same shape)."""
    atol, rtol = tolerance(expected, drawn, base)
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


def noise_level(run_values: dict, cotangents: dict, dtype: torch.dtype) -> float:
    """Return the float noise of a hand-written gradient: round-off of its upstream values."""
    if not dtype.is_floating_point:
        return 0.0
    scale = max((float(c.abs().max()) for c in cotangents.values() if c.numel()), default=0.0)
    return NOISE_UNITS * torch.finfo(dtype).eps * scale


def below_noise(got: torch.Tensor, expected: torch.Tensor, noise: float) -> bool:
    """Return whether both the true gradient and the answer are within float noise of zero."""
    if not noise or not expected.numel():
        return False
    return float(expected.abs().max()) <= noise and float(got.abs().max()) <= noise


def zero_by_coincidence(got: torch.Tensor | None, expected: torch.Tensor) -> bool:
    """Return whether got is all zeros where the true gradient is only float noise."""
    if got is None or got.shape != expected.shape or expected.numel() == 0:
        return False
    return not bool(got.any()) and float(expected.abs().max()) < NEAR_ZERO


def label(value: int, sizes: dict) -> str:
    """Return the name of a size (`n`), of a product of two (`block_size*n_embd`), or the number."""
    names = [k for k, v in sizes.items() if v == value]
    if len(names) == 1:
        return names[0]
    products = [
        f"{a}*{b}" for a, b in itertools.combinations(sizes, 2) if sizes[a] * sizes[b] == value
    ]
    return products[0] if len(products) == 1 and not names else str(value)


def named(shape: tuple[int, ...], sizes: dict, declared: str = "") -> str:
    """Return a shape with its sizes named: (32, 27) -> (n, vocab_size); where a size stays a
    number, the shape comment `declared` instead, if given: (2*n_embd, n_hidden)."""
    parts = [label(v, sizes) if v != 1 else "1" for v in shape]
    if declared and any(p.isdigit() and p != "1" for p in parts):
        return declared
    return f"({parts[0]},)" if len(parts) == 1 else "(" + ", ".join(parts) + ")"


def broadcast_dims(got: tuple, expected: tuple) -> tuple[int, ...] | None:
    """Return the dims of `got` along which `expected` would have been broadcast, if any."""
    if len(expected) > len(got):
        return None
    padded = (1,) * (len(got) - len(expected)) + expected
    if any(e not in (1, g) for e, g in zip(padded, got, strict=True)):
        return None
    dims = tuple(i for i, (e, g) in enumerate(zip(padded, got, strict=True)) if e == 1 and g != 1)
    return dims or None


def factor_label(
    got: torch.Tensor, expected: torch.Tensor, n: int, sizes: dict | None = None
) -> str:
    """Return the constant factor relating got to expected, named by the sizes where one fits.

    Small integers and their inverses, n-1 and n/(n-1) (Bessel), every named size, and every
    ratio of two sizes (a mean over the wrong size); otherwise the number itself.
    """
    dot = float((expected * expected).sum())
    if dot == 0.0:
        return ""
    k = float((got * expected).sum()) / dot
    if abs(k - 1.0) < 1e-3 or abs(k) < 1e-6 or not alike(got, expected * k):
        return ""
    for name, value, *_ in _factors(n, sizes or {}):
        if abs(k - value) <= 1e-3 * abs(value):
            return name
    return f"{k:.3g}"


@dataclass(frozen=True)
class Factor:
    """A constant factor a slip may leave, named (`n/(n-1)`), with what it means as fields:
    Bessel's correction of the size `bessel`, or a division by `used` where the formula
    divides by `right` (either empty: a division left out, or one too many)."""

    name: str
    value: float
    bessel: str = ""  # the size whose k/(k-1) this is
    used: str = ""
    right: str = ""


def factors(n: int, sizes: dict) -> list[Factor]:
    """Return the constant factors a slip may leave, named, simplest first."""
    return [Factor(*f) for f in _factors(n, sizes)]


def _factors(n: int, sizes: dict) -> list[tuple]:
    """Return candidate factors, simplest first, with their inverses, as Factor's fields."""
    base: list[tuple] = [("2", 2.0, "", "", ""), ("3", 3.0, "", "", "")]
    everything = ({"n": float(n)} if n >= 2 else {}) | {
        k: float(v) for k, v in sizes.items() if k != "n" and v > 1
    }
    if n >= 2:
        base += [("n", float(n), "", "", "n"), ("n-1", n - 1.0, "n", "", "")]
        base += [("n/(n-1)", n / (n - 1), "n", "", "")]
    base += [(k, v, "", "", k) for k, v in everything.items() if k != "n"]
    base += [(f"{k}/({k}-1)", v / (v - 1), k, "", "") for k, v in everything.items() if k != "n"]
    base += [
        (f"{a}/{b}", everything[a] / everything[b], "", b, a)
        for a, b in itertools.permutations(everything, 2)
        if everything[a] != everything[b]
    ]
    out = []
    for name, value, bessel, used, right in base:
        out.append((name, value, bessel, used, right))
        out.append((_inverse(name), 1.0 / value, bessel, right, used))
    return out


def _inverse(name: str) -> str:
    """Name the inverse of a factor: n -> 1/n, d/n -> n/d, n/(n-1) -> (n-1)/n."""
    if name.endswith("-1)"):
        return f"({name.split('/')[0]}-1)/{name.split('/')[0]}"
    if "/" in name:
        return "/".join(reversed(name.split("/")))
    return f"1/({name})" if "-" in name else f"1/{name}"


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


@dataclass(frozen=True)
class Spread:
    """Where an answer differs from autograd's, measured on a 2-D view: the share of entries
    that differ, the rows and columns they are in, and the most in any one row."""

    share: float
    rows: tuple[int, ...]
    cols: tuple[int, ...]
    per_row: int


def spread(got: torch.Tensor, expected: torch.Tensor) -> Spread:
    """Return where got differs from expected beyond the lecture's tolerance."""
    bad = _as_2d(~torch.isclose(got, expected, rtol=RTOL, atol=ATOL))
    rows = tuple(int(i) for i in bad.any(1).nonzero().flatten())
    cols = tuple(int(i) for i in bad.any(0).nonzero().flatten())
    share = float(bad.float().mean()) if bad.numel() else 0.0
    per_row = int(bad.sum(1).max()) if bad.numel() else 0
    return Spread(share, rows, cols, per_row)


def differing(got: torch.Tensor, expected: torch.Tensor) -> torch.Tensor:
    """Return the mask of entries where got differs from expected beyond the tolerance."""
    return ~torch.isclose(got, expected, rtol=RTOL, atol=ATOL)


def as_2d(t: torch.Tensor) -> torch.Tensor:
    """View a tensor as 2-D (see `_as_2d`)."""
    return _as_2d(t)


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


def nearest_multiple(got: torch.Tensor, pattern: torch.Tensor) -> torch.Tensor:
    """Return the multiple of `pattern` nearest to `got`."""
    norm = float((pattern * pattern).sum())
    return pattern * (float((got * pattern).sum()) / norm) if norm else pattern * 0.0


def is_multiple(got: torch.Tensor, pattern: torch.Tensor) -> bool:
    """Return whether `got` is a non-zero multiple of `pattern`."""
    fitted = nearest_multiple(got, pattern)
    return bool(fitted.any()) and bool(got.any()) and alike(got, fitted)
