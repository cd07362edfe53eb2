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

__all__ = ["Term", "reduction_dims", "sums_multiplied", "terms_wrong"]


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
    got: torch.Tensor, terms: tuple[tuple[str, torch.Tensor], ...], factors
) -> tuple[Term, ...] | None:
    """Return what is wrong with each term of a fused formula that the answer drops, negates or
    rescales (by a factor of `factors`), if the answer is such a mix of the terms."""
    largest = max((float(t.abs().max()) for _, t in terms), default=0.0)
    kept = [(name, t) for name, t in terms if float(t.abs().max()) > STEADY_TERM * largest]
    if len(kept) < 2:
        return None
    basis = torch.stack([t.reshape(-1).double() for _, t in kept], 1)
    solution = torch.linalg.lstsq(basis, got.reshape(-1, 1).double()).solution.flatten()
    fitted = (basis @ solution).reshape(got.shape).to(got.dtype)
    if not alike(got, fitted):
        return None
    wrong = tuple(
        _coefficient(name, float(c), factors)
        for (name, _), c in zip(kept, solution, strict=True)
        if abs(float(c) - 1.0) > 1e-3
    )
    return wrong or None


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
