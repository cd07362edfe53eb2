"""Detectors of a slip of indexing with the targets: `[:, Yb]`, `[Yb]`, every column, one column
off, the targets' entries alone or wrong, `[Yb, range(n)]`, nothing written (chained indexing),
and the formulas with the targets' one-hot written with the wrong tensor or a softmax over the
wrong dim. Each returns what it recognised, or None; nothing here runs learner code.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

import torch

from grader.feedback.diagnose import alike, is_multiple, nearest_multiple

__all__ = [
    "entries_at",
    "index_applies",
    "index_order",
    "index_slip",
    "softmax_dim",
    "swapped_tensor",
    "target_entries",
    "zeros_only",
]


MEMO_SIZE = 64  # what depends only on autograd's side of a case, kept for the cases last read


def index_slip(
    got: torch.Tensor, expected: torch.Tensor, values: Mapping[str, torch.Tensor]
) -> tuple[str, str] | None:
    """Return (where, targets): how the answer scattered the gradient with the targets
    (`[:, Yb]`, `[Yb]`, every column, the target entries alone) instead of `[range(n), Yb]`."""
    if expected.dim() != 2:
        return None
    for name, targets in values.items():
        if not _targets_of(targets, expected):
            continue
        patterns = list(_patterns(targets, expected, got))
        where = _first_fit(got - expected, patterns)
        if where:
            return where, name
        onehot = _onehot(targets, expected)
        if not alike(expected, nearest_multiple(expected, onehot)) and is_multiple(got, onehot):
            return "alone", name
    return None


def _first_fit(got: torch.Tensor, patterns: list[tuple[str, torch.Tensor]]) -> str:
    """Return the name of the first pattern `got` is a non-zero multiple of (`is_multiple` on
    each, in order), or "": every pattern weighed at once."""
    flat = torch.stack([p.reshape(-1) for _, p in patterns]).double()
    answer = got.reshape(-1).double()
    norms = (flat * flat).sum(1)
    scale = torch.where(norms > 0, (flat @ answer) / norms.clamp_min(1e-300), 0.0)
    fitted = (flat * scale[:, None]).to(got.dtype)
    atol = 1e-6 * fitted.abs().amax(1).clamp_min(1e-3)
    close = ((got.reshape(-1) - fitted).abs() <= atol[:, None] + 1e-4 * fitted.abs()).all(1)
    fits = (close & fitted.any(1)).tolist() if bool(got.any()) else []
    return next((name for (name, _), fit in zip(patterns, fits, strict=False) if fit), "")


def swapped_tensor(
    got: torch.Tensor, expected: torch.Tensor, values: Mapping[str, torch.Tensor]
) -> tuple[str, str] | None:
    """Return (used, right): a formula of a tensor and the targets' one-hot (cross-entropy's
    `(probs - onehot) / n`) written with another tensor (`logprobs` for `probs`)."""
    if expected.dim() != 2:
        return None
    targets = next((t for t in values.values() if _targets_of(t, expected)), None)
    if targets is None:
        return None
    onehot = _onehot(targets, expected)
    same = {k: v for k, v in values.items() if v.shape == expected.shape and v.is_floating_point()}

    def formula() -> str:
        return next((k for k, v in same.items() if _combines(expected, v, onehot)), "")

    right = _memo(("swapped", expected, targets, *same.items()), formula)
    if not right:  # the gradient is no such formula: nothing to swap
        return None
    used = next((k for k, v in same.items() if k != right and _combines(got, v, onehot)), "")
    return (used, right) if used else None


def softmax_dim(
    got: torch.Tensor, expected: torch.Tensor, values: Mapping[str, torch.Tensor]
) -> tuple[str, int, int] | None:
    """Return (logits, the answer's dim, the right dim) when `got` is cross-entropy's gradient,
    a softmax and the targets' one-hot, with the softmax over the wrong dim."""
    if expected.dim() != 2 or not _rows_cancel(expected):
        return None
    targets = next((t for t in values.values() if _targets_of(t, expected)), None)
    if targets is None:
        return None
    onehot = _onehot(targets, expected)
    for name, value in values.items():
        if value.shape != expected.shape or not value.is_floating_point():
            continue
        made = [torch.softmax(value.to(expected.dtype), d) for d in (0, 1)]
        right = [d for d in (0, 1) if _combines(expected, made[d], onehot)]
        if right and _combines(got, made[1 - right[0]], onehot):
            return name, 1 - right[0], right[0]
    return None


def _rows_cancel(expected: torch.Tensor) -> bool:
    """Return whether every row of a gradient adds up to zero, as a softmax's does."""
    scale = float(expected.abs().max())
    return scale > 0 and float(expected.sum(1).abs().max()) <= 1e-4 * scale


def _combines(answer: torch.Tensor, tensor: torch.Tensor, onehot: torch.Tensor) -> bool:
    """Return whether `answer` is a * tensor + b * onehot with a non-zero."""
    basis = torch.stack([tensor.reshape(-1).double(), onehot.reshape(-1).double()], 1)
    solution = torch.linalg.lstsq(basis, answer.reshape(-1, 1).double()).solution
    fitted = (basis @ solution).reshape(answer.shape).to(answer.dtype)
    return abs(float(solution[0])) > 1e-9 and alike(answer, fitted)


def _targets_of(targets: torch.Tensor, expected: torch.Tensor) -> bool:
    """Return whether a tensor is a class index per row of `expected`."""
    if targets.dtype not in (torch.int64, torch.int32) or targets.dim() != 1:
        return False
    rows, cols = expected.shape
    return len(targets) == rows and bool((targets >= 0).all()) and int(targets.max()) < cols


def _onehot(targets: torch.Tensor, expected: torch.Tensor) -> torch.Tensor:
    """Return the one-hot of the targets, one row per example."""
    out = torch.zeros_like(expected)
    out[torch.arange(len(targets)), targets] = 1.0
    return out


def _memo(key: tuple, make: Callable[[], object]) -> object:
    """Return make(), kept under `key`: a tuple of names and the very tensors it reads (held by
    the memo, so that no other tensor can take their identity while it is kept). What depends
    only on autograd's side of a case is so computed once per case, not once per answer."""
    ident = tuple(id(part) if isinstance(part, torch.Tensor) else part for part in _flat(key))
    kept = _MEMO.get(ident)
    if kept is not None and all(map(_same, kept[0], _flat(key))):
        return kept[1]
    value = make()
    if len(_MEMO) >= MEMO_SIZE:
        _MEMO.pop(next(iter(_MEMO)), None)
    _MEMO[ident] = (_flat(key), value)
    return value


def _same(a: object, b: object) -> bool:
    """Return whether two parts of a key are the same: the same tensor, or equal values."""
    return a is b if isinstance(a, torch.Tensor) else a == b


def _flat(key: tuple) -> tuple:
    """Return a key's parts, its (name, tensor) pairs spread out."""
    return tuple(x for part in key for x in (part if isinstance(part, tuple) else (part,)))


_MEMO: dict[tuple, tuple[tuple, object]] = {}


def _patterns(targets: torch.Tensor, expected: torch.Tensor, got: torch.Tensor):
    """Yield (where, the slip's difference from the one-hot): a mask minus the one-hot."""
    shape = (tuple(expected.shape), expected.dtype)
    fixed = _memo(("patterns", targets, shape), lambda: tuple(_fixed(targets, expected)))
    yield from fixed
    onehot = _onehot(targets, expected)
    column = int((got - expected).abs().sum(0).argmax())  # one and the same column in every row
    yield "column", _onehot(torch.full_like(targets, column), expected) - onehot


def _fixed(targets: torch.Tensor, expected: torch.Tensor):
    """Yield the patterns of `_patterns` that depend on the targets and the shape alone."""
    onehot = _onehot(targets, expected)
    columns = torch.zeros_like(expected)
    columns[:, targets] = 1.0
    yield "columns", columns - onehot
    if int(targets.max()) < expected.shape[0]:
        rows = torch.zeros_like(expected)
        rows[targets] = 1.0
        yield "rows", rows - onehot
    yield "everywhere", 1.0 - onehot
    if int(targets.max()) < expected.shape[0] and len(targets) <= expected.shape[1]:
        swapped = torch.zeros_like(expected)  # `[Yb, range(n)]`: row Yb[i], column i
        swapped[targets, torch.arange(len(targets))] = 1.0
        yield "swapped", swapped - onehot
    cols = expected.shape[1]
    for where, step in (("left", -1), ("right", 1)):  # one column off each row's target
        yield where, _onehot((targets + step) % cols, expected) - onehot


def index_applies(expected: torch.Tensor, values: Mapping[str, torch.Tensor]) -> bool:
    """Return whether the slips of indexing with the targets were tried on this gradient: it is
    2-D and a tensor in scope holds a class index per row."""
    return expected.dim() == 2 and any(_targets_of(t, expected) for t in values.values())


PLACED_ROWS = 4  # rows that must differ before their places are read as a pattern


def entries_at(
    bad: torch.Tensor, values: Mapping[str, torch.Tensor], first: str = ""
) -> tuple[tuple[str, str], ...]:
    """Return where the entries that differ (`bad`, 2-D, at most two per row) are, when every
    one of them is a row's target or a row's largest entry of a tensor in scope (one such
    place, or two, each holding some): (`targets`, name), (`largest`, name); () otherwise.
    `first` is tried first (the exercise's own tensor)."""
    if bad.dim() != 2 or int(bad.any(1).sum()) < PLACED_ROWS or int(bad.sum(1).max()) > 2:
        return ()
    places = list(_places(bad, values, first))
    for said, at in places:  # one place alone first: the simplest true description
        if not bool((bad & ~at).any()):
            return (said,)
    for a, (said, at) in enumerate(places):
        for other, also in places[a + 1 :]:
            inside = not bool((bad & ~(at | also)).any())
            if inside and bool((bad & at & ~also).any()) and bool((bad & also & ~at).any()):
                return (said, other)
    return ()


def _places(bad: torch.Tensor, values: Mapping[str, torch.Tensor], first: str):
    """Yield ((kind, name), the mask of one entry per row) for the targets and for each row's
    largest entry of every float tensor of the gradient's shape, `first` first."""
    names = sorted(values, key=lambda k: k != first)
    for name in names:
        value = values[name]
        if _targets_of(value, bad):
            yield ("targets", name), _onehot(value, bad.float()).bool()
    for name in names:
        value = values[name]
        if value.shape == bad.shape and value.is_floating_point():
            yield ("largest", name), _onehot(value.argmax(1), bad.float()).bool()


def target_entries(
    got: torch.Tensor, expected: torch.Tensor, values: Mapping[str, torch.Tensor]
) -> str | None:
    """Return the targets' name when the answer is wrong at their entries only (one per row)."""
    if expected.dim() != 2 or got.shape != expected.shape:
        return None
    wrong = ~torch.isclose(got, expected, rtol=1e-4, atol=1e-6 * float(expected.abs().max()))
    for name, targets in values.items():
        if _targets_of(targets, expected):
            at = _onehot(targets, expected).bool()
            if bool(wrong.any()) and not bool((wrong & ~at).any()):
                return name
    return None


def zeros_only(got: torch.Tensor, expected: torch.Tensor) -> bool:
    """Return whether the answer is all zeros where the true gradient is not."""
    return got.numel() > 0 and not bool(got.any()) and float(expected.abs().max()) > 0.0


def index_order(tree: ast.AST) -> tuple[str, str] | None:
    """Return (targets, rows) for an index written `[Yb, range(n)]`: the targets first and
    the row numbers second, rows and columns swapped."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple):
            continue
        elts = node.slice.elts
        if len(elts) == 2 and isinstance(elts[0], ast.Name) and _row_numbers(elts[1]):
            return elts[0].id, ast.unparse(elts[1])
    return None


def _row_numbers(node: ast.expr) -> bool:
    """Return whether an index is the row numbers, `range(n)` or `torch.arange(n)`."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return name in ("range", "arange")
