"""The detector of an embedding's gradient sent to the wrong rows: for a lookup `e = table[index]`,
the table's gradient adds up, in each character's row, the gradients of every place that
character was read. A learner may average the repeats instead, keep only one of them (an
assignment, or `+=` through an index with repeats, one position or the whole at once), send a
whole context's gradient to the row of one of its characters, or read one position only. Each
is built here from autograd's upstream gradient and the indices; nothing here runs learner code.

    >>> routing(got, expected, Xb, demb).how
    'averaged'
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

import torch

from grader.feedback.diagnose import alike

__all__ = ["Routing", "gather_index", "routing"]


@dataclass(frozen=True)
class Routing:
    """How the gradient was routed (`how`: averaged, overwritten, overwritten within a position,
    context to one row, one position), the position it names (`position`, or None) and how
    many positions a context has (`positions`)."""

    how: str
    position: int | None = None
    positions: int = 0


def gather_index(line: str, table: str) -> str:
    """Return the index's name when a forward line looks rows of `table` up (`e = table[ix]`)."""
    try:
        stmt = ast.parse(line).body[0]
    except (SyntaxError, IndexError):
        return ""
    value = getattr(stmt, "value", None)
    if not isinstance(value, ast.Subscript) or not isinstance(value.value, ast.Name):
        return ""
    if value.value.id != table or not isinstance(value.slice, ast.Name):
        return ""
    return value.slice.id


def _added(rows: torch.Tensor, grads: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """Return the table's gradient with each row of `grads` added to its row of `rows`."""
    return torch.zeros_like(like).index_add_(0, rows, grads.to(like.dtype))


def _last(rows: torch.Tensor, grads: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """Return the table's gradient with each row written in turn, the last write kept."""
    out = torch.zeros_like(like)
    for row, grad in zip(rows.tolist(), grads, strict=True):
        out[row] = grad
    return out


def _by_position(index, upstream, like) -> torch.Tensor:
    """Return `+=` through each position's index in turn: repeats within one position keep
    only one of their gradients, repeats across positions add up."""
    out = torch.zeros_like(like)
    for j in range(index.shape[1]):
        out = out + _last(index[:, j], upstream[:, j], like)
    return out


def _candidates(index, upstream, like) -> Iterator[tuple[Routing, torch.Tensor]]:
    """Yield each wrong routing with the gradient it makes."""
    rows, grads = index.reshape(-1), upstream.reshape(-1, *like.shape[1:])
    right = _added(rows, grads, like)
    times = torch.bincount(rows, minlength=like.shape[0]).clamp(min=1).to(like.dtype)
    yield Routing("averaged"), right / times.view(-1, *([1] * (like.dim() - 1)))
    yield Routing("overwritten"), _last(rows, grads, like)
    assigned = torch.zeros_like(like)
    assigned[rows] = grads.to(like.dtype)
    yield Routing("overwritten"), assigned
    if index.dim() == 2:
        yield Routing("overwritten within a position"), _by_position(index, upstream, like)
        count = index.shape[1]
        for j in range(count):
            whole = _added(index[:, j], upstream.sum(1), like)
            yield Routing("context to one row", j, count), whole
            yield Routing("one position", j, count), _added(index[:, j], upstream[:, j], like)


def routing(
    got: torch.Tensor, expected: torch.Tensor, index: torch.Tensor, upstream: torch.Tensor
) -> Routing | None:
    """Return how the answer routed a lookup's gradient, when it is one of the wrong ways."""
    if (
        index.dtype not in (torch.int64, torch.int32)
        or index.shape != upstream.shape[: index.dim()]
    ):
        return None
    if alike(got, expected):
        return None
    with torch.no_grad():
        for found, made in _candidates(index.long(), upstream, expected):
            if not alike(made, expected) and alike(got, made):
                return found
    return None
