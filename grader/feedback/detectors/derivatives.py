"""Detectors of a wrong local derivative: the upstream gradient times the wrong one (or none), the
right one applied twice, the local derivative alone, the power rule's exponent kept or left out,
a tensor's factor left out or added. Each returns what it recognised, or None.

    >>> derivative = local_derivative(got, expected, {"counts": counts}, dcounts)
    >>> derivative.used, derivative.right
    ('`norm_logits`', '`counts`')

Every candidate is built in the parent from forward values and autograd's upstream gradients;
nothing here runs learner code.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch

from grader.feedback.diagnose import alike, broadcast_dims

__all__ = [
    "Derivative",
    "exponent",
    "local_derivative",
    "local_only",
    "missing_factor",
    "power_kept",
    "power_slip",
]


# The local derivatives a learner reaches for, as functions of one tensor in scope (`{}` is its
# name); each shows as it reads in the lecture's code.
SHAPES: tuple[tuple[str, Callable[[torch.Tensor], torch.Tensor]], ...] = (
    ("`{}`", lambda t: t),
    ("1/`{}`", lambda t: 1.0 / t),
    ("1 - `{}`**2", lambda t: 1.0 - t * t),
    ("`{}` * (1 - `{}`)", lambda t: t * (1.0 - t)),
    ("1 - `{}`", lambda t: 1.0 - t),
    ("`{}`**2", lambda t: t * t),
    ("1 - tanh(`{}`)**2", lambda t: 1.0 - torch.tanh(t) ** 2),
    ("`{}`.exp()", torch.exp),
    ("`{}`.log()", torch.log),
    ("-`{}`**-2", lambda t: -(t**-2)),
)


PROBES = 16  # entries a candidate is first tried on


@dataclass(frozen=True)
class Derivative:
    """A local derivative the answer multiplied by (`used`), and the right one if one of the
    candidates is (`right`, "" when none is); `used` is "1" for none at all."""

    used: str
    right: str
    twice: bool = False


def _reduced(product: torch.Tensor, shape: torch.Size) -> torch.Tensor | None:
    """Sum a product over the dims the forward pass broadcast, to `shape` (None if it cannot)."""
    if product.shape == shape:
        return product
    dims = broadcast_dims(tuple(product.shape), tuple(shape))
    if dims is None:
        return None
    return product.sum(dims, keepdim=True).reshape(shape)


def _product(value, function, upstream: torch.Tensor, shape: torch.Size):
    """Return a candidate local derivative times the upstream gradient, summed to `shape`."""
    if value is None:
        return _reduced(upstream, shape)
    with torch.no_grad():
        return _reduced(function(value.to(upstream.dtype)) * upstream, shape)


def _broadcasts(value: torch.Tensor, upstream: torch.Tensor) -> bool:
    """Return whether `value` broadcasts against `upstream` without growing it."""
    try:
        return torch.broadcast_shapes(value.shape, upstream.shape) == upstream.shape
    except RuntimeError:
        return False


def _rough(answer: torch.Tensor, stacked: torch.Tensor, upstream: torch.Tensor, function):
    """Return, for each stacked value, whether `function(value) * upstream` may be `answer`:
    judged loosely, on a few entries where the shapes agree, so that the candidates are tried
    in a handful of tensor operations and only the likely ones in full."""
    with torch.no_grad():
        if answer.shape == upstream.shape:
            idx = torch.linspace(0, answer.numel() - 1, PROBES).long()
            picked = function(stacked.reshape(len(stacked), -1)[:, idx])
            made, want = picked * upstream.reshape(-1)[idx], answer.reshape(-1)[idx]
        else:
            dims = broadcast_dims(tuple(upstream.shape), tuple(answer.shape))
            if dims is None:  # the answer is larger than the upstream gradient: no candidate
                return [False] * len(stacked)
            full = function(stacked) * upstream
            made = full.sum(tuple(d + 1 for d in dims), keepdim=True)
            made, want = made.reshape(len(stacked), -1), answer.reshape(-1)
    scale = max(float(answer.abs().max()), 1e-3)
    close = torch.isclose(made, want.expand_as(made), rtol=1e-2, atol=1e-4 * scale)
    return close.all(1).tolist()


def _exact(answer: torch.Tensor, value, function, upstream: torch.Tensor) -> bool:
    """Return whether a candidate is `answer`, to the tolerance of `alike`."""
    candidate = _product(value, function, upstream, answer.shape)
    if candidate is None or not bool(torch.isfinite(candidate).all()):
        return False
    return alike(answer, candidate)


def _first(answer: torch.Tensor, values: Mapping[str, torch.Tensor], upstream: torch.Tensor):
    """Return (label, value, function) of the first candidate that is `answer`, or None."""
    if _exact(answer, None, None, upstream):
        return "1", None, None
    if not values:
        return None
    names = list(values)
    stacked = torch.stack([values[k].to(upstream.dtype).expand(upstream.shape) for k in names])
    for form, function in SHAPES:
        for name, maybe in zip(names, _rough(answer, stacked, upstream, function), strict=True):
            if maybe and _exact(answer, values[name], function, upstream):
                return form.format(name, name), values[name], function
    return None


def _twice(answer: torch.Tensor, right, upstream: torch.Tensor) -> bool:
    """Return whether `answer` is the right local derivative applied twice."""
    if right is None or right[1] is None:
        return False
    function = right[2]
    return _exact(answer, right[1], lambda t: function(t) * function(t), upstream)


def local_derivative(
    got: torch.Tensor,
    expected: torch.Tensor,
    values: Mapping[str, torch.Tensor],
    upstream: torch.Tensor,
) -> Derivative | None:
    """Return the wrong local derivative the answer multiplied the upstream gradient by."""
    if alike(got, expected):
        return None
    usable = {k: v for k, v in values.items() if v.is_floating_point() and _broadcasts(v, upstream)}
    used, right = _first(got, usable, upstream), _first(expected, usable, upstream)
    if used:
        return Derivative(used[0], right[0] if right else "")
    return Derivative(right[0], right[0], twice=True) if _twice(got, right, upstream) else None


def local_only(got: torch.Tensor, expected: torch.Tensor, upstream: torch.Tensor) -> bool:
    """Return whether `got` is the local derivative alone, not yet times the upstream gradient."""
    if got.shape != upstream.shape or got.shape != expected.shape or alike(got, expected):
        return False
    return alike(got * upstream, expected)


def power_kept(
    got: torch.Tensor, output: torch.Tensor, upstream: torch.Tensor, power: float | None
) -> bool:
    """Return whether `got` is `power * output * upstream`: the power rule's exponent brought
    down but not lowered (`-0.5 * x**-0.5` for the derivative of `x**-0.5`)."""
    if power is None or power in (0.0, 1.0):
        return False
    made = _reduced(power * output.to(upstream.dtype) * upstream, got.shape)
    return made is not None and alike(got, made)


def missing_factor(
    got: torch.Tensor, expected: torch.Tensor, values: Mapping[str, torch.Tensor]
) -> tuple[str, bool] | None:
    """Return (name, left out) when `got` is the gradient divided by a tensor in scope (its
    factor left out), or multiplied by one (False: one factor too many)."""
    for name, value in values.items():
        if not value.is_floating_point() or not _broadcasts(value, expected) or value.numel() < 2:
            continue
        value = value.to(expected.dtype)
        if alike(got * value, expected):
            return name, True
        if alike(got, expected * value):
            return name, False
    return None


POWER = re.compile(r"\*\*\s*\(?\s*(-?\d+(?:\.\d+)?)")


def exponent(line: str) -> float | None:
    """Return the exponent of a power in a forward line (`x ** -0.5` -> -0.5), if any."""
    found = POWER.search(line.split("#")[0])
    return float(found.group(1)) if found else None


def power_slip(ratio: float, power: float | None) -> bool:
    """Return whether an answer `ratio` times the gradient left out the exponent the power
    rule brings down (or brought it down twice)."""
    if power is None or power in (0.0, 1.0) or not math.isfinite(ratio):
        return False
    slips = (1.0 / power, power, (power - 1.0) / power)  # left out, twice, the new exponent
    return any(abs(ratio - k) <= 1e-3 * abs(k) for k in slips)
