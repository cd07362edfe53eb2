"""Detectors that read the chain rule's neighbouring lines: the factors of a forward line's local
derivative, read from the scenario's own text (`1 / (n - 1)`, `2`, `bndiff`), so that an answer
can be recognised as one step too far (times the next step's local derivative), a step applied
again (times the previous step's), or a branch with one factor of its local derivative, or its
upstream gradient, left out.

    >>> local_factors("y = x**2", "x")
    ('2', 'x')
    >>> local_factors("v = 1 / (n - 1) * (x2).sum(0, keepdim=True)", "x2")
    ('1 / (n - 1)',)

The factors are code of the instructor's forward line; the grader evaluates them on the case's
forward values (trusted code, as the forward pass is). Nothing here runs learner code.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch

from grader.feedback.diagnose import alike, broadcast_dims

__all__ = [
    "Neighbour",
    "Partial",
    "local_factors",
    "names_in",
    "neighbour_step",
    "partial_factor",
    "product",
    "to_shape",
]

ATOMS = (ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.Subscript)
FUNCTIONS = {  # a function's local derivative, from its output `{out}` or its input `{x}`
    "tanh": ("1 - {out}**2", "1 - torch.tanh({x})**2"),
    "exp": ("{out}", "torch.exp({x})"),
    "log": ("1 / {x}", "1 / {x}"),
    "sigmoid": ("{out} * (1 - {out})", "torch.sigmoid({x}) * (1 - torch.sigmoid({x}))"),
}
REDUCTIONS = ("sum",)  # the gradient broadcasts back through these, with no factor


def _text(line: str, node: ast.AST) -> str:
    """Return a node as the line writes it, bracketed unless it is one operand."""
    text = ast.get_source_segment(line, node) or ast.unparse(node)
    return text if isinstance(node, ATOMS) else f"({text})"


def _holds(node: ast.AST, name: str) -> bool:
    """Return whether an expression reads `name`."""
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _step(node: ast.expr, wrt: str, line: str, out: str, root: bool):
    """Return (the factors this node contributes, the child that holds `wrt`), or None when
    the node is not a product, a power, a sum or a known function of it."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Add | ast.Sub):
        inside, other = (
            (node.left, node.right) if _holds(node.left, wrt) else (node.right, node.left)
        )
        if _holds(other, wrt):
            return None  # read twice: not one factor per use
        if isinstance(node.op, ast.Mult):
            return (ast.get_source_segment(line, other) or ast.unparse(other),), inside
        sign = ("-1",) if isinstance(node.op, ast.Sub) and inside is node.right else ()
        return sign, inside
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _holds(node.left, wrt):
        return (f"1 / {_text(line, node.right)}",), node.left if not _holds(
            node.right, wrt
        ) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return _power(node, line)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return ("-1",), node.operand
    if isinstance(node, ast.Call):
        return _call(node, line, out, root)
    return None


def _power(node: ast.BinOp, line: str):
    """Return a power's factors: the exponent and the base to the exponent less one."""
    try:
        power = float(ast.literal_eval(node.right))
    except (ValueError, TypeError, SyntaxError):
        return None
    base = _text(line, node.left)
    lowered = base if power == 2 else f"{base}**{power - 1:g}"
    return (f"{power:g}", lowered), node.left


def _call(node: ast.Call, line: str, out: str, root: bool):
    """Return a call's factors: a known function's derivative, none for a sum."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    method = isinstance(func, ast.Attribute) and not _module(func.value)
    arg = func.value if method else (node.args[0] if node.args else None)
    if arg is None:
        return None
    if name in REDUCTIONS and method:
        return (), arg
    if name not in FUNCTIONS:
        return None
    from_out, from_in = FUNCTIONS[name]
    x = _text(line, arg)
    return ((from_out if root else from_in).format(out=out, x=x),), arg


def _module(node: ast.expr) -> bool:
    """Return whether a name is torch's or its functional module (`torch.tanh(x)`)."""
    return isinstance(node, ast.Name) and node.id in ("torch", "F")


def local_factors(line: str, wrt: str) -> tuple[str, ...] | None:
    """Return the factors of the local derivative of a forward line `out = expr` with respect
    to one input it reads once, as code written like the line; None when the line is not made
    of products, powers, sums and known functions of it (a matmul, an index, a max)."""
    try:
        stmt = ast.parse(line).body[0]
    except (SyntaxError, IndexError):
        return None
    if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Name):
        return None
    out, node, factors = stmt.targets[0].id, stmt.value, []
    while not (isinstance(node, ast.Name) and node.id == wrt):
        step = _step(node, wrt, line, out, node is stmt.value)
        if step is None or step[1] is None:
            return None
        factors += step[0]
        node = step[1]
    return tuple(factors)


MODULES = frozenset({"torch", "F", "math"})


def names_in(code: str) -> set[str]:
    """Return the names an expression reads, torch's modules aside."""
    try:
        tree = ast.parse(code, mode="eval")
    except SyntaxError:
        return {code}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - MODULES


def to_shape(t: torch.Tensor, shape: torch.Size) -> torch.Tensor | None:
    """Return a gradient brought to a tensor's shape: broadcast where the forward pass summed,
    summed where it broadcast (None when neither fits)."""
    if t.shape == shape:
        return t
    try:
        if torch.broadcast_shapes(t.shape, shape) == shape:
            return t.expand(shape)
    except RuntimeError:
        pass
    dims = broadcast_dims(tuple(t.shape), tuple(shape))
    return None if dims is None else t.sum(dims, keepdim=True).reshape(shape)


def product(values: list) -> torch.Tensor | float:
    """Return the product of factors (tensors or numbers)."""
    out = 1.0
    for v in values:
        out = out * v
    return out


Evaluate = Callable[[str], "torch.Tensor | float | None"]


@dataclass(frozen=True)
class Neighbour:
    """An answer that is the gradient times a neighbouring step's factor: `factor` (code), of
    the line `line`, which belongs to the step computing `step` (`next` or the one before)."""

    factor: str
    line: str
    step: str
    following: bool  # True: the next step's factor; False: the previous step's, applied again


def _candidates(line: str, wrt: str, evaluate: Evaluate) -> list[tuple[str, object]]:
    """Return (code, value) for a line's whole local derivative and for each of its factors
    that is a tensor or names a size: what a neighbouring step multiplies by."""
    factors = local_factors(line, wrt)
    if not factors:
        return []
    values = [evaluate(f) for f in factors]
    if any(v is None for v in values):
        return []
    whole = " * ".join(f for f in factors if f != "-1") or "-1"
    out = [(whole if len(factors) > 1 else factors[0], product(values))]
    sized = [
        (f, v) for f, v in zip(factors, values, strict=True) if len(factors) > 1 and _sized(f, v)
    ]
    return out + sized


def _sized(code: str, value) -> bool:
    """Return whether a factor is a tensor or a size expression (not a bare number)."""
    if isinstance(value, torch.Tensor) and value.numel() > 1:
        return True
    return any(c.isalpha() for c in code)


def _times(got: torch.Tensor, expected: torch.Tensor, value) -> bool:
    """Return whether `got` is `expected` times a factor that broadcasts to its shape."""
    if isinstance(value, torch.Tensor):
        if value.numel() == 1:
            value = float(value)
        else:
            try:
                if torch.broadcast_shapes(value.shape, expected.shape) != expected.shape:
                    return False
            except RuntimeError:
                return False
            value = value.to(expected.dtype)
    if isinstance(value, float) and abs(abs(value) - 1.0) < 1e-6:
        return False
    made = expected * value
    return bool(torch.isfinite(made).all()) and not alike(made, expected) and alike(got, made)


def neighbour_step(
    got: torch.Tensor,
    expected: torch.Tensor,
    lines: Mapping[str, str],
    evaluate: Evaluate,
) -> Neighbour | None:
    """Return the neighbouring step's factor the answer multiplied the gradient by: `lines`
    maps `next:<input>` to the target's own line (read with respect to that input) and
    `before:<consumer>` to the line that reads the target's consumer."""
    for key, line in lines.items():
        step, wrt = key.split(":", 1)
        for code, value in _candidates(line, wrt, evaluate):
            if _times(got, expected, value):
                return Neighbour(code, line, wrt, step == "next")
    return None


@dataclass(frozen=True)
class Partial:
    """A branch whose local derivative misses one factor (`left_out`, code; `upstream` when it
    is the branch's upstream gradient), of the line `line` with the full `derivative`."""

    left_out: str
    line: str
    derivative: str
    upstream: bool = False


def partial_factor(
    mine: torch.Tensor,
    upstream: torch.Tensor,
    line: str,
    wrt: str,
    evaluate: Evaluate,
) -> Partial | None:
    """Return the factor of a line's local derivative that a branch's contribution (`mine`)
    leaves out: the upstream gradient times every other factor, brought to the shape."""
    factors = local_factors(line, wrt)
    if not factors or len(factors) < 2:
        return None
    values = [evaluate(f) for f in factors]
    if any(v is None for v in values):
        return None
    derivative = " * ".join(factors)
    for i, code in enumerate(factors):
        if code == "-1":
            continue
        rest = product(values[:i] + values[i + 1 :])
        made = to_shape(upstream * rest, mine.shape)
        if made is not None and alike(mine, made.to(mine.dtype)):
            return Partial(code, line, derivative)
    return None
