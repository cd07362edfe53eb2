"""The detector of a shape mismatch: the misconception behind an answer of the wrong shape."""

from __future__ import annotations

import ast

import torch

from grader import misconceptions as m
from grader.feedback.diagnose import alike, broadcast_dims, label, named
from grader.misconceptions import Found

__all__ = ["LECTURE_SLIPS", "lectures_own", "shape_mismatch", "summed_everything", "wrong_sum"]


# Lines of the lecture's own Exercise 1 cell whose shape is wrong although the lecture's `cmp`
# passes them (`==` broadcasts): recognised so that the feedback can say whose line it is.
LECTURE_SLIPS = {"dbnmeani": "dbnmeani = (-dbndiff).sum(0)"}


def lectures_own(tree: ast.Module, name: str) -> bool:
    """Return whether the code's assignment of `name` is the lecture's own slip of shape."""
    slip = LECTURE_SLIPS.get(name)
    if slip is None:
        return False
    wanted = ast.dump(ast.parse(slip).body[0])
    for stmt in tree.body:
        targets = getattr(stmt, "targets", [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return ast.dump(stmt) == wanted
    return False


def shape_mismatch(
    got: torch.Tensor,
    expected: torch.Tensor,
    sizes: dict | None = None,
    upstream: tuple[tuple[int, ...], ...] = (),
    declared: str = "",
) -> Found | None:
    """Name the misconception behind a shape mismatch: a broadcast dim to sum, a dropped dim, a
    transpose, a reshape, a sum over the wrong dim or a sum that should not be there; sizes are
    named where known (`declared`, the target's shape comment, where they are not)."""
    g, e = tuple(got.shape), tuple(expected.shape)
    sizes = sizes or {}
    if got.numel() == expected.numel() and _squeezed(g) == _squeezed(e):
        right = alike(got.reshape(e), expected)
        if len(e) > len(g):
            return Found(m.KEEPDIM_LOST, (right,))
        return Found(m.VALUES_RIGHT_SHAPE_WRONG, (e,)) if right else Found(m.WRONG_SHAPE, (e,))
    if len(g) == len(e) == 2 and g == e[::-1] and alike(got.T, expected):
        return Found(m.TRANSPOSED)
    if _diagonal_is(got, expected):
        return Found(m.MATMUL_FOR_SUM)
    dims = broadcast_dims(g, e)
    if dims is not None:
        summed = got.sum(dims, keepdim=True).reshape(e)
        if alike(summed, expected):
            return Found(m.BROADCAST_NOT_SUMMED, (dims, len(e) == len(g)))
        return Found(m.WRONG_SHAPE, (e, named(e, sizes, declared)))  # summing alone: still wrong
    if got.numel() == expected.numel():
        return Found(m.WRONG_SHAPE, (e, named(e, sizes, declared)))
    everything = summed_everything(got, e, upstream)
    if everything:
        return everything
    wrong = wrong_sum(g, e, sizes, upstream, declared)
    if wrong:
        return wrong
    if broadcast_dims(e, g) is not None:
        padded = (1,) * (len(e) - len(g)) + g
        lost = [i for i, (a, b) in enumerate(zip(padded, e, strict=True)) if a != b]
        names = [label(e[i], sizes) for i in lost]
        return Found(m.SUMMED_NOT_BROADCAST, (named(e, sizes, declared), lost, names))
    return None


def _diagonal_is(got: torch.Tensor, expected: torch.Tensor) -> bool:
    """Return whether a square answer's diagonal is the gradient: `a.T @ b` for `(a*b).sum(0)`."""
    if got.dim() != 2 or got.shape[0] != got.shape[1] or expected.numel() != got.shape[0]:
        return False
    return alike(torch.diagonal(got).reshape(expected.shape), expected)


def summed_everything(
    got: torch.Tensor, e: tuple, upstream: tuple[tuple[int, ...], ...]
) -> Found | None:
    """Name a `.sum()` of every entry where the forward pass broadcast over some dims only
    (`db2 = dlogits.sum()`)."""
    if got.numel() != 1 or len(e) == 0 or _squeezed(e) == ():
        return None
    for shape in upstream:
        dims = broadcast_dims(shape, e)
        if dims is not None:
            return Found(m.SUMMED_EVERYTHING, (dims,))
    return None


def wrong_sum(
    g: tuple, e: tuple, sizes: dict, upstream: tuple[tuple[int, ...], ...], declared: str = ""
) -> Found | None:
    """Name a sum over the wrong dim: both shapes keep as many sizes, all alike but one
    (`(B, C)` for `(hs, C)`: the sum went over hs, where it should have gone over B)."""
    gs, es = _squeezed(g), _squeezed(e)
    if len(gs) != len(es):
        return None
    differ = [i for i, (a, b) in enumerate(zip(gs, es, strict=True)) if a != b]
    if len(differ) != 1:
        return None
    kept_wrong, kept_right = gs[differ[0]], es[differ[0]]
    right = label(kept_right, sizes)
    right = (_declared_label(e, kept_right, declared) or right) if right.isdigit() else right
    full = next((u for u in upstream if kept_wrong in u and kept_right in u), None)
    if full is None:
        return Found(m.SUMMED_WRONG_DIM, (right, label(kept_wrong, sizes)))
    dims = (full.index(kept_wrong), full.index(kept_right), len(e) == len(full))
    return Found(m.SUMMED_WRONG_DIM, (right, label(kept_wrong, sizes), *dims))


def _declared_label(shape: tuple, value: int, declared: str) -> str:
    """Return the shape comment's name for the dim of `shape` that holds `value`, if any."""
    parts = [p.strip() for p in declared.strip().strip("()").split(",") if p.strip()]
    if len(parts) != len(shape) or value not in shape:
        return ""
    return parts[shape.index(value)]


def _squeezed(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Drop the size-1 dimensions of a shape."""
    return tuple(s for s in shape if s != 1)
