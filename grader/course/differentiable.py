"""Which tensors of a forward program carry a gradient, read from the program's text.

A comparison mask (`(x > 0).float()`), indices (`x.argmax(1)`) or a detached value has no
gradient: it is no exercise's target and no tensor's consumer. Autograd has the last word:
grader/proving/scenariocheck.py reports a line where the two disagree.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from grader.course.program import Statement

# Methods and functions whose result carries no gradient (indices, masks, signs, detached).
NO_GRADIENT = frozenset(
    {
        *("long", "int", "bool", "short", "byte", "char", "detach", "data", "sign"),
        *("argmax", "argmin", "argsort", "round", "floor", "ceil", "trunc", "nonzero"),
        *("eq", "ne", "gt", "lt", "ge", "le", "isnan", "isinf", "isfinite"),
        *("logical_not", "logical_and", "logical_or", "logical_xor"),
        *("bernoulli", "randint", "multinomial", "indices", "shape", "dtype", "size", "ndim"),
    }
)


def mark_differentiable(forward: tuple[Statement, ...], params: tuple[str, ...]):
    """Return the forward statements marked: a statement carries a gradient when its value
    depends, through operations that carry one, on a parameter or on such a statement."""
    carrying, marked = set(params), []
    for stmt in forward:
        value = ast.parse(stmt.source).body[0].value
        flows = carries(value, carrying)
        if flows:
            carrying.add(stmt.target)
        marked.append(replace(stmt, differentiable=flows))
    return tuple(marked)


def carries(node: ast.AST, carrying: set[str]) -> bool:
    """Return whether an expression's value can carry a gradient from the names in `carrying`:
    `(x > 0).float()` and `x.argmax(1)` cannot, `x[idx] * mask` can through `x`."""
    if isinstance(node, ast.Name):
        return node.id in carrying
    if isinstance(node, ast.Compare | ast.Constant | ast.BoolOp):
        return False
    if isinstance(node, ast.UnaryOp):
        return not isinstance(node.op, ast.Not) and carries(node.operand, carrying)
    if isinstance(node, ast.Subscript):
        return carries(node.value, carrying)
    if isinstance(node, ast.Attribute):
        return node.attr not in NO_GRADIENT and carries(node.value, carrying)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in NO_GRADIENT:
            return False
        parts = [*node.args, *(k.value for k in node.keywords)]
        if isinstance(func, ast.Attribute):
            parts.append(func.value)
        return any(carries(p, carrying) for p in parts)
    return any(carries(child, carrying) for child in ast.iter_child_nodes(node))
