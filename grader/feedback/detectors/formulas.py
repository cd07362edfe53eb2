"""Detectors of a wrong formula's structure: a fused formula's terms dropped, negated or rescaled,
the dims its reductions name, and a weight's gradient written as a product of two batch sums.
Each returns what it recognised, or None; nothing here runs learner code.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

import torch

from grader.feedback.diagnose import alike, is_multiple

__all__ = [
    "Term",
    "present_terms",
    "reduction_dims",
    "sums_multiplied",
    "sums_product",
    "terms_wrong",
]


STEADY_TERM = 1e-4  # a term smaller than this, relative to the largest, is float noise


@dataclass(frozen=True)
class Term:
    """What is wrong with one term of a fused formula: its statistic ("" for the direct term),
    the coefficient found ("0" dropped, "-1" negated, or a factor's name), and the factor's
    facts: Bessel's correction of the size `bessel`, or a division by `used` where the formula
    has `right`."""

    term: str
    label: str
    bessel: str = ""
    used: str = ""
    right: str = ""


def terms_wrong(
    got: torch.Tensor,
    terms: tuple[tuple[str, torch.Tensor], ...],
    factors,
    expected: torch.Tensor | None = None,
) -> tuple[Term, ...] | None:
    """Return what is wrong with each term of a fused formula that the answer drops, negates or
    rescales (by a factor of `factors`), if the answer is such a mix of the terms.

    Guarded: a term is weighed only when it is not float noise and, given autograd's answer
    (`expected`), only when it is part of it (terms from a path that cancels, such as the max
    of a softmax, are not); the answer must then be such a mix to float precision, with the
    terms not all off by one and the same factor (a sign or a factor of the whole answer).
    """
    kept = present_terms(terms, expected)
    if len(kept) < 2:
        return None
    solution = _fit(got, [t for _, t in kept])
    if solution is None:
        return None
    if max(solution) - min(solution) < 1e-3 * max(1.0, max(abs(c) for c in solution)):
        return None  # the whole answer scaled or negated: not one term
    wrong = tuple(
        _coefficient(name, c, factors)
        for (name, _), c in zip(kept, solution, strict=True)
        if abs(c - 1.0) > 1e-3
    )
    return wrong or None


def present_terms(terms, expected: torch.Tensor | None) -> list[tuple[str, torch.Tensor]]:
    """Return the terms that are not float noise, each scaled by its share of autograd's answer
    (when given), leaving out those it does not hold; none when they do not make it up."""
    largest = max((float(t.abs().max()) for _, t in terms), default=0.0)
    kept = [(name, t) for name, t in terms if float(t.abs().max()) > STEADY_TERM * largest]
    if expected is None or len(kept) < 2:
        return kept
    shares = _fit(expected, [t for _, t in kept])
    if shares is None:
        return []
    return [(name, t * c) for (name, t), c in zip(kept, shares, strict=True) if abs(c) > 1e-3]


def _fit(answer: torch.Tensor, basis: list[torch.Tensor]) -> list[float] | None:
    """Return the coefficients that make `answer` of the basis, when it is such a mix to float
    precision and the basis has no two terms alike (else None)."""
    stacked = torch.stack([t.reshape(-1).double() for t in basis], 1)
    if torch.linalg.matrix_rank(stacked / stacked.abs().amax(0).clamp_min(1e-300)) < len(basis):
        return None
    solution = torch.linalg.lstsq(stacked, answer.reshape(-1, 1).double()).solution.flatten()
    fitted = (stacked @ solution).reshape(answer.shape).to(answer.dtype)
    return [float(c) for c in solution] if alike(answer, fitted) else None


def _coefficient(term: str, value: float, factors) -> Term:
    """Name a term's coefficient: 0 (dropped), -1 (negated) or a factor from `factors`."""
    if abs(value) < 1e-3:
        return Term(term, "0")
    if abs(value + 1.0) < 1e-3:
        return Term(term, "-1")
    for f in factors:
        for sign, shown in ((1.0, f.name), (-1.0, f"-{f.name}")):
            if abs(value - sign * f.value) <= 1e-3 * abs(f.value):
                return Term(term, shown, f.bessel, f.used, f.right)
            if abs(value - sign * f.value * f.value) <= 1e-3 * f.value * f.value:
                return Term(term, f"({shown})**2", f.bessel)
    return Term(term, f"{value:.3g}")


def sums_multiplied(
    got: torch.Tensor, values: Mapping[str, torch.Tensor], upstream: Mapping[str, torch.Tensor]
) -> tuple[str, str] | None:
    """Return (input, upstream) when a weight's gradient is the outer product of two batch
    sums (or means) instead of the sum over the batch of one outer product per example."""
    if got.dim() != 2:
        return None
    for up_name, up in upstream.items():
        if up.dim() < 2 or up.shape[-1] != got.shape[1]:
            continue
        for name, value in values.items():
            fits = value.dim() == up.dim() and value.shape[:-1] == up.shape[:-1]
            fits = fits and value.shape[-1] == got.shape[0]
            if not fits or not value.is_floating_point():
                continue
            if any(is_multiple(got, made.to(got.dtype)) for made in _sum_products(value, up)):
                return name, up_name
    return None


def sums_product(value: str, upstream: str, flat: bool) -> str:
    """Return the sum over the batch of one outer product per example, as code."""
    if flat:
        return f"{value}.flatten(0, -2).T @ {upstream}.flatten(0, -2)"
    return f"{value}.T @ {upstream}"


def _sum_products(value: torch.Tensor, up: torch.Tensor):
    """Yield the products of batch sums a learner may write: over every leading dim at once,
    then over the batch (dim 0) alone, the rest multiplied as matrices."""
    a, b = value.double(), up.double()
    yield a.reshape(-1, a.shape[-1]).sum(0)[:, None] * b.reshape(-1, b.shape[-1]).sum(0)[None, :]
    if a.dim() > 2:
        yield a.sum(0).reshape(-1, a.shape[-1]).T @ b.sum(0).reshape(-1, b.shape[-1])


REDUCTIONS = ("sum", "mean", "var", "std")  # calls whose dim says what a statistic runs over


def reduction_dims(tree: ast.AST) -> tuple[int, ...]:
    """Return the dims that the reductions of some code name (`x.sum(0)`, `torch.mean(x,
    dim=-1)`, `axis=1`), in order; a reduction of every entry names none."""
    dims: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _reduction(node.func):
            method = isinstance(node.func, ast.Attribute) and not _is_torch(node.func.value)
            given = node.args[0 if method else 1 :][:1]
            given += [k.value for k in node.keywords if k.arg in ("dim", "axis")]
            dims += [d for arg in given for d in _ints(arg)]
    return tuple(dims)


def _reduction(func: ast.expr) -> bool:
    """Return whether a call's function is a reduction, as a method or `torch.<name>`."""
    return isinstance(func, ast.Attribute) and func.attr in REDUCTIONS


def _is_torch(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "torch"


def _ints(node: ast.expr) -> list[int]:
    """Return the integer constants a dim argument holds (one, or a tuple of them)."""
    if isinstance(node, ast.Tuple | ast.List):
        return [d for elt in node.elts for d in _ints(elt)]
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return []
    return [value] if isinstance(value, int) and not isinstance(value, bool) else []
