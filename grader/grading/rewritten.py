"""What the feedback proposes to change in the learner's code, checked before it is said: the
code is rewritten on its syntax tree (grader/feedback/detectors/rewrites.py) and the rewrite run
in the sandbox, as the learner's code is; a sentence proposes the change only when the rewrite
gives autograd's answer, and otherwise says only what it measured.

    >>> precedence(got, clues)  # `1 - h**2 * dh`, whose bracketed form is autograd's answer
    Found('precedence', ('1 - h**2 * dh', '(1 - h ** 2) * dh'), remedy=Remedy(...))

The same holds for a PyTorch error (`*` where the forward pass multiplies matrices, a missing
transpose, a one-hot too narrow) and a wrong shape (a sum over the wrong dim, `@` where the
batch is summed). Learner code and its rewrites run only in the sandbox.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import torch

from grader import misconceptions as m
from grader.feedback import detectors, diagnose
from grader.misconceptions import Found, Remedy

if TYPE_CHECKING:
    from grader.grading.evidence import Clues


def _first(rewrites, clues: Clues):
    """Return the first rewrite that gives autograd's answer, or None."""
    return next((r for r in rewrites if clues.gives(r.code)), None)


def precedence(got: torch.Tensor, clues: Clues) -> Found | None:
    """A formula one bracket away from autograd's answer: `*` took an operand of `-` that the
    learner meant to keep together (`1 - h**2 * dh` for `(1 - h**2) * dh`)."""
    if clues.tree is None:
        return None
    fixed = _first(detectors.precedence(clues.tree, clues.source), clues)
    if fixed is None:
        return None
    return Found(m.PRECEDENCE, (fixed.before, fixed.after), remedy=Remedy(fixed.code, True))


def for_error(found: Found | None, line: int | None, clues: Clues | None) -> Found | None:
    """Return a PyTorch error's misconception with its remedy checked: a one-hot without
    `num_classes`; `@` for `*` on a line that does not broadcast; a transpose or a swap where
    `@`'s inner sizes clash; `*` for `@` between element-wise factors. Without a remedy that
    gives autograd's answer, the same misconception says only what it measured."""
    if found is None or clues is None or clues.tree is None:
        return found
    width = one_hot_width(found, clues)
    if width is not None:
        return width
    rewrites = {
        m.BROADCAST_CLASH: lambda: detectors.transposes(clues.tree, line, ast.Mult),
        m.MATMUL_SHAPES: lambda: detectors.transposes(clues.tree, line),
        m.MATMUL_FOR_ELEMENTWISE: lambda: detectors.operator_swap(
            clues.tree, line, ast.MatMult, ast.Mult
        ),
        m.INDEX_ADD_SHAPE: lambda: detectors.index_add_flat(clues.tree),
    }.get(found.misconception)
    if rewrites is None:
        return found
    fixed = _first([r for r in rewrites() if _may_fit(r, clues)][: detectors.MAX_REWRITES], clues)
    args = found.args + ("",) * (ARGS[found.misconception] - len(found.args))
    said = (*args, fixed.after if fixed else "")
    return Found(found.misconception, said, remedy=Remedy(fixed.code, True) if fixed else None)


# The facts each of these errors' sentences takes before the remedy (`fixed`).
ARGS = {m.BROADCAST_CLASH: 3, m.MATMUL_SHAPES: 4, m.MATMUL_FOR_ELEMENTWISE: 2, m.INDEX_ADD_SHAPE: 1}


def _may_fit(rewrite, clues: Clues) -> bool:
    """Return whether a rewritten matrix product may be the gradient, judged from the shapes of
    the tensors it names (a name in scope, or its `.T`); True when they are not all known."""
    try:
        node = ast.parse(rewrite.after, mode="eval").body
    except SyntaxError:
        return True
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult)):
        return True
    left, right = _shape(node.left, clues), _shape(node.right, clues)
    if left == () or right == ():
        return False  # a number is no matrix
    if left is None or right is None or len(left) != 2 or len(right) != 2:
        return True
    return left[1] == right[0] and (left[0], right[1]) == tuple(clues.expected.shape)


def _shape(node: ast.expr, clues: Clues) -> tuple[int, ...] | None:
    """Return the shape of a name in scope, or of its `.T`, read from the case's tensors; ()
    for a number (a constant, or an expression of sizes alone); None when not known."""
    names = [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    if all(n in clues.sizes for n in names):
        return ()
    flip = isinstance(node, ast.Attribute) and node.attr == "T"
    name = node.value if flip else node
    if not isinstance(name, ast.Name):
        return None
    upstream = clues.upstream.get(name.id[1:]) if name.id.startswith("d") else None
    tensor = clues.values.get(name.id, upstream)
    if tensor is None:
        return None
    shape = tuple(tensor.shape)
    return shape[::-1] if flip else shape


def one_hot_width(found: Found, clues: Clues) -> Found | None:
    """Return a one-hot too narrow: the code makes one without `num_classes`, the error or the
    shape clashes, and the code with `num_classes` given a size of the gradient's (checked in
    the sandbox) gives autograd's answer."""
    calls = detectors.one_hot_calls(clues.tree)
    if not calls or found.misconception not in WIDTH_CLASHES:
        return None
    for name, size in _classes(clues):
        fixed = _first(detectors.one_hot_classes(clues.tree, name), clues)
        if fixed is not None:
            said = (ast.unparse(calls[0]), name, size, fixed.after)
            return Found(m.ONE_HOT_WIDTH, said, remedy=Remedy(fixed.code, True))
    return None


# The misconceptions a one-hot too narrow shows as: a clash of sizes, or a shape that differs.
WIDTH_CLASHES = (m.BROADCAST_CLASH, m.MATMUL_SHAPES, m.WRONG_SHAPE, m.SUMMED_WRONG_DIM)


def _classes(clues: Clues) -> list[tuple[str, int]]:
    """Return the sizes in scope that a dim of the gradient has: what `num_classes` may be."""
    dims = set(clues.expected.shape)
    return [
        (name, size)
        for name, size in clues.sizes.items()
        if size in dims and size > 1 and (not clues.scope or name in clues.scope)
    ]


def for_shape(found: Found | None, got: torch.Tensor, clues: Clues | None) -> Found | None:
    """Return a wrong shape's misconception with its remedy checked, by a rewrite run in the
    sandbox (`@` where the batch is summed, a sum over the wrong dim or over everything) or
    applied here to the answer (a dim to sum, to keep, to broadcast back, a transpose)."""
    if found is None or clues is None:
        return found
    if clues.tree is not None:
        width = one_hot_width(found, clues)
        if width is not None:
            return width
    checked = SHAPE_REMEDIES.get(found.misconception)
    return checked(found, got, clues) if checked else found


def _matmul_for_sum(found: Found, got: torch.Tensor, clues: Clues) -> Found:
    """`a.T @ b` for `(a * b).sum(0)`: the dim is the one the gradient keeps as 1, checked by
    the rewrite `(a * b).sum(dim, keepdim=True)` run in the sandbox."""
    shape = tuple(clues.expected.shape)
    dim = next((d for d, size in enumerate(shape) if size == 1), None)
    if dim is None or clues.tree is None:
        return Found(found.misconception, (None,))
    keep = len(shape) == 2
    fixed = _first(detectors.matmul_as_product(clues.tree, dim, keep), clues)
    if fixed is None:
        return Found(found.misconception, (None,))
    return Found(found.misconception, (dim, fixed.after), remedy=Remedy(fixed.code, True))


def _wrong_sum(found: Found, got: torch.Tensor, clues: Clues) -> Found:
    """A sum over the wrong dim (or over every entry): the right dim is proposed only when the
    code with its sum over that dim, run in the sandbox, gives autograd's answer."""
    if found.misconception == m.SUMMED_EVERYTHING:
        dims, keep = tuple(found.args[0]), len(clues.expected.shape) > 1
    elif len(found.args) == 5:
        dims, keep = (found.args[2],), bool(found.args[4])
    else:
        return _unchecked(found)
    fixed = _first(detectors.sum_over(clues.tree, dims, keep), clues) if clues.tree else None
    if fixed is None:
        return _unchecked(found)
    return Found(found.misconception, (*found.args, True), remedy=Remedy(fixed.code, True))


def _unchecked(found: Found) -> Found:
    """Return a wrong sum that proposes no dim: its sentence then says only the shapes."""
    if found.misconception == m.SUMMED_EVERYTHING:
        return Found(found.misconception, (found.args[0], False))
    return Found(found.misconception, found.args[:2])


def _broadcast_back(found: Found, got: torch.Tensor, clues: Clues) -> Found:
    """A sum where every element has its own gradient: broadcasting the answer back is
    proposed only when that, applied to the answer, gives autograd's answer."""
    line = f"{clues.answer} = {clues.answer}.expand_as({clues.target})"
    right = _gives(lambda: got.expand_as(clues.expected), clues)
    if not right or (clues.scope and clues.target not in clues.scope):
        return Found(found.misconception, (*found.args, False))
    return Found(found.misconception, (*found.args, True), remedy=Remedy(line))


def _gives(made, clues: Clues) -> bool:
    """Return whether a tensor made from the answer (a thunk; it may raise) is autograd's."""
    try:
        tensor = made()
    except RuntimeError:
        return False
    return tensor.shape == clues.expected.shape and diagnose.alike(tensor, clues.expected)


def _kept(found: Found, got: torch.Tensor, clues: Clues) -> Found:
    """A dim of size 1 dropped: keeping it is proposed when the values are autograd's."""
    line = f"{clues.answer} = {clues.answer}.view_as({clues.target})"
    right = _gives(lambda: got.reshape(clues.expected.shape), clues)
    if not right or (clues.scope and clues.target not in clues.scope):
        return Found(found.misconception, (False, *found.args[1:]))
    return Found(found.misconception, found.args, remedy=Remedy(line))


def _summed(found: Found, got: torch.Tensor, clues: Clues) -> Found:
    """A broadcast dim not summed: the sum the sentence names, applied to the answer."""
    dims, keepdim = found.args
    shown = dims[0] if len(dims) == 1 else tuple(dims)
    line = f"{clues.answer} = {clues.answer}.sum({shown}{', keepdim=True' if keepdim else ''})"
    if not _gives(lambda: got.sum(tuple(dims), keepdim=keepdim), clues):
        return found
    return Found(found.misconception, found.args, remedy=Remedy(line))


def _transposed(found: Found, got: torch.Tensor, clues: Clues) -> Found:
    """The transpose of the gradient: `.T` applied to the answer is autograd's."""
    if not _gives(lambda: got.T, clues):
        return found
    return Found(
        found.misconception, found.args, remedy=Remedy(f"{clues.answer} = {clues.answer}.T")
    )


SHAPE_REMEDIES = {
    m.MATMUL_FOR_SUM: _matmul_for_sum,
    m.SUMMED_WRONG_DIM: _wrong_sum,
    m.SUMMED_EVERYTHING: _wrong_sum,
    m.SUMMED_NOT_BROADCAST: _broadcast_back,
    m.KEEPDIM_LOST: _kept,
    m.BROADCAST_NOT_SUMMED: _summed,
    m.TRANSPOSED: _transposed,
}
