"""A scenario's shape comments, `# (n, n_hidden)`: evaluated with the sizes, never run as code."""

from __future__ import annotations

import ast
import functools

SAFE = (ast.Expression, ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Load)
SAFE += (ast.Mult, ast.Add, ast.Sub, ast.FloorDiv, ast.Div, ast.USub)


def evaluate_shape(comment: str, sizes: dict) -> tuple[int, ...] | None:
    """Return a shape comment's value with the sizes, e.g. "(n, block_size*n_embd)" -> (32, 30);
    None when it holds anything but sizes, numbers and arithmetic. Each comment is read once
    per set of sizes (the grader asks at every submission)."""
    return _evaluate(comment, tuple(sorted(sizes.items())))


@functools.lru_cache(maxsize=4096)
def _evaluate(comment: str, items: tuple) -> tuple[int, ...] | None:
    """Return `evaluate_shape(comment, dict(items))`."""
    sizes = dict(items)
    try:
        tree = ast.parse(comment.strip() if comment.strip() != "()" else "()", mode="eval")
    except SyntaxError:
        return None
    parts = tree.body.elts if isinstance(tree.body, ast.Tuple) else [tree.body]
    shape = []
    for part in parts:
        expr = ast.Expression(part)
        if not all(isinstance(n, SAFE) for n in ast.walk(expr)):
            return None
        names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        if not names <= set(sizes):
            return None
        shape.append(int(eval(compile(expr, "<shape>", "eval"), {"__builtins__": {}}, sizes)))
    return tuple(shape)
