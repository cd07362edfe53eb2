"""The detector of PyTorch's errors: the misconception behind a shape or API error the learner's
code raised, in the learner's sizes."""

from __future__ import annotations

import re

import torch

from grader import misconceptions as m
from grader.feedback.diagnose import label, named
from grader.misconceptions import Found

__all__ = ["pytorch_error"]


MATMUL = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")


BROADCAST = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton "
    r"dimension (\d+)"
)


VIEW = re.compile(r"shape '\[([-\d, ]+)\]' is invalid for input of size (\d+)")


def pytorch_error(kind: str, message: str, sizes: dict) -> Found | None:
    """Translate PyTorch's shape errors into the learner's sizes: a matmul, a broadcast, a view
    (PyTorch's own message is read here: it is the learner's exception, not our sentence)."""
    if found := INDEX_ADD.search(message):
        return Found(m.INDEX_ADD_SHAPE, (int(found.group(1) or 0),))
    if ONE_HOT.search(message):
        return Found(m.MAX_WRONG_DIM)
    for pattern, translate in API_SLIPS:
        if found := pattern.search(message):
            return translate(found, sizes)
    if kind != "RuntimeError":
        return None
    if found := BATCHED.search(message):
        return Found(m.MATMUL_FOR_ELEMENTWISE)
    if found := MATMUL.search(message):
        a, b, c, d = (int(x) for x in found.groups())
        shapes = (named((a, b), sizes), named((c, d), sizes))
        if _elementwise((a, b), (c, d)):
            return Found(m.MATMUL_FOR_ELEMENTWISE, shapes)
        return Found(m.MATMUL_SHAPES, (*shapes, label(b, sizes), label(c, sizes)))
    if found := BROADCAST.search(message):
        a, b, dim = (int(x) for x in found.groups())
        return Found(m.BROADCAST_CLASH, (_with_label(a, sizes), _with_label(b, sizes), dim))
    if found := VIEW.search(message):
        shape = tuple(int(x) for x in found.group(1).split(",") if x.strip())
        return Found(m.BAD_VIEW, (str(list(shape)), int(found.group(2))))
    return None


INDEX_ADD = re.compile(
    r"index_add_?\(\): (?:Index is supposed to be a vector|Number of indices(?:.*?for dim: (\d+))?)"
)


BATCHED = re.compile(r"Expected size for first two dimensions of batch2 tensor")


# PyTorch's errors for common API slips, each with the misconception it shows and its facts.
API_SLIPS = (
    (
        re.compile(r"must be Tensor, not torch\.return_types\.(\w+)"),
        lambda found, sizes: Found(m.PAIR_NOT_TAKEN, (found.group(1),)),
    ),
    (
        re.compile(r"Index tensor must have the same number of dimensions"),
        lambda found, sizes: Found(m.INDEX_DIMS),
    ),
    (
        re.compile(r"unsupported operand type\(s\) for .*'(?:builtin_function_or_method|method)'"),
        lambda found, sizes: Found(m.METHOD_NOT_CALLED),
    ),
    (
        re.compile(r"transpose\(\) (?:missing|received an invalid combination)"),
        lambda found, sizes: Found(m.TRANSPOSE_NO_DIMS),
    ),
    (
        re.compile(r"index (-?\d+) is out of bounds for dimension (\d+) with size (\d+)"),
        lambda found, sizes: Found(
            m.INDEX_OUT_OF_RANGE,
            (int(found.group(1)), int(found.group(2)), _with_label(int(found.group(3)), sizes)),
        ),
    ),
)


ONE_HOT = re.compile(r"Class values must be smaller than num_classes")


def _elementwise(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Return whether two shapes that `@` cannot multiply would multiply element by element."""
    try:
        return torch.broadcast_shapes(a, b) in (a, b)
    except RuntimeError:
        return False


def _with_label(value: int, sizes: dict) -> str:
    """Return a size with its name beside it, `32 (n)`, or the number alone."""
    name = label(value, sizes)
    return f"{value} ({name})" if name != str(value) else str(value)
