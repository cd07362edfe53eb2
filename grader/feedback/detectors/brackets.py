"""The rewrites of a precedence slip, read from the learner's syntax tree and never run here:
a chain of `+ - * / @ **` written without the bracket that would have kept an operand of `+` or
`-` together (`1 - h**2 * dh` for `(1 - h**2) * dh`), each rewrite with one bracket more. The
grader runs them in the sandbox and names the slip only when one gives autograd's answer.

    >>> [r.after for r in precedence(ast.parse("dhpreact = 1 - h**2 * dh"))]
    ['(1 - h) ** 2 * dh', '(1 - h ** 2) * dh']
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator

from grader.feedback.detectors.rewrites import MAX_REWRITES, Rewrite, node_at, put_in_place

__all__ = ["precedence"]


def _flatten(node: ast.expr) -> tuple[list[ast.expr], list[ast.operator], list[ast.expr]]:
    """Return a chain of `+ - * / @ **` as its operands and operators in the order written, and
    the inner nodes merged into it; a child that needed a bracket (a lower precedence, or an
    equal one on the side that groups first) stays one operand."""
    if not _chain(node):
        return [node], [], []
    rank, right_first = _rank(node.op), isinstance(node.op, ast.Pow)
    left, right = node.left, node.right
    merge_left = _chain(left) and (
        _rank(left.op) > rank or (_rank(left.op) == rank and not right_first)
    )
    merge_right = _chain(right) and (
        _rank(right.op) > rank or (_rank(right.op) == rank and right_first)
    )
    a, a_ops, a_in = _flatten(left) if merge_left else ([left], [], [])
    b, b_ops, b_in = _flatten(right) if merge_right else ([right], [], [])
    inner = a_in + b_in + [n for n, m in ((left, merge_left), (right, merge_right)) if m]
    return a + b, a_ops + [node.op] + b_ops, inner


def _chain(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and bool(_rank(node.op))


def _rank(op: ast.operator) -> int:
    """Return an operator's precedence in a chain (0: not one of the chain's operators)."""
    ranks = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.MatMult: 2, ast.Pow: 3}
    return ranks.get(type(op), 0)


SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.MatMult: "@", ast.Pow: "**"}


def _operand(node: ast.expr, source: str, base: bool) -> str:
    """Return one operand as the learner wrote it, bracketed when it is an expression (a
    negation only as the base of a power)."""
    text = (ast.get_source_segment(source, node) if source else None) or ast.unparse(node)
    atomic = isinstance(node, ast.Name | ast.Constant | ast.Call | ast.Attribute | ast.Subscript)
    atomic = atomic or (isinstance(node, ast.UnaryOp) and not base)
    return text if atomic else f"({text})"


def _bracketed(operands: list, ops: list, span: tuple[int, int], source: str) -> str:
    """Return the chain written with one bracket around the operands of `span`."""
    start, end = span
    parts = []
    for i, operand in enumerate(operands):
        base = i < len(ops) and isinstance(ops[i], ast.Pow)
        text = _operand(operand, source, base)
        parts.append(("(" if i == start else "") + text + (")" if i == end else ""))
        if i < len(ops):
            parts.append(SYMBOLS[type(ops[i])])
    return " ".join(parts)


def _spans(ops: list) -> Iterator[tuple[int, int]]:
    """Yield the spans of a chain's operands that a bracket may hold, shortest first, the whole
    chain left out: a slip of precedence is mostly one bracket around a short `a - b`."""
    count = len(ops) + 1
    for length in range(2, count):
        for start in range(count - length + 1):
            yield start, start + length - 1


def _regrouped(node: ast.expr, source: str) -> list[tuple[ast.expr, str]]:
    """Return the chain with one bracket more around a `+` or `-` that changes its grouping,
    with its text."""
    operands, ops, _ = _flatten(node)
    found, seen = [], {ast.dump(node)}
    for start, end in _spans(ops):
        if not any(_rank(op) == 1 for op in ops[start:end]):
            continue
        text = _bracketed(operands, ops, (start, end), source)
        new = ast.parse(text, mode="eval").body
        if ast.dump(new) not in seen:
            seen.add(ast.dump(new))
            found.append((new, text))
    return found


def precedence(tree: ast.Module, source: str = "") -> list[Rewrite]:
    """Return the code with one bracket added where `*`, `/` or `**` took an operand of `+` or
    `-` that a bracket would have kept (`1 - h**2 * dh` -> `(1 - h**2) * dh`); the operands
    are shown as written in `source`, when given."""
    nodes = list(ast.walk(tree))
    merged = {id(n) for node in nodes if _chain(node) for n in _flatten(node)[2]}
    found: list[Rewrite] = []
    for index, root in enumerate(nodes):
        if not _chain(root) or id(root) in merged:
            continue
        written = (ast.get_source_segment(source, root) if source else None) or ast.unparse(root)
        for regrouped, text in _regrouped(root, source):
            module = copy.deepcopy(tree)
            put_in_place(module, node_at(module, index), regrouped)
            code = ast.unparse(ast.fix_missing_locations(module))
            found.append(Rewrite(code, written, text))
    return found[:MAX_REWRITES]
