"""Wrong answers a learner is likely to write, computed in the parent from the exercise's own
tensors: wrong local derivatives, slips of indexing with the targets, a fused formula's terms
dropped or rescaled, a product of sums. Each function returns what it recognised, or None.

    >>> derivative = local_derivative(got, expected, {"counts": counts}, dcounts)
    >>> derivative.used, derivative.right
    ('`norm_logits`', '`counts`')

Nothing here runs learner code: every candidate is built from forward values and autograd's
upstream gradients, which the grading parent already holds.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch

from grader.feedback.diagnose import alike, broadcast_dims

# The local derivatives a learner reaches for, as functions of one tensor in scope (`{}` is its
# name); each shows as it reads in the lecture's code.
SHAPES: tuple[tuple[str, Callable[[torch.Tensor], torch.Tensor]], ...] = (
    ("`{}`", lambda t: t),
    ("1/`{}`", lambda t: 1.0 / t),
    ("1 - `{}`**2", lambda t: 1.0 - t * t),
    ("`{}` * (1 - `{}`)", lambda t: t * (1.0 - t)),
    ("1 - `{}`", lambda t: 1.0 - t),
    ("`{}`**2", lambda t: t * t),
    ("1 - tanh(`{}`)**2", lambda t: 1.0 - torch.tanh(t) ** 2),
    ("`{}`.exp()", torch.exp),
    ("`{}`.log()", torch.log),
    ("-`{}`**-2", lambda t: -(t**-2)),
)
PROBES = 16  # entries a candidate is first tried on
MEMO_SIZE = 64  # what depends only on autograd's side of a case, kept for the cases last read
STEADY_TERM = 1e-4  # a term smaller than this, relative to the largest, is float noise


@dataclass(frozen=True)
class Derivative:
    """A local derivative the answer multiplied by (`used`), and the right one if one of the
    candidates is (`right`, "" when none is); `used` is "1" for none at all."""

    used: str
    right: str
    twice: bool = False


def _reduced(product: torch.Tensor, shape: torch.Size) -> torch.Tensor | None:
    """Sum a product over the dims the forward pass broadcast, to `shape` (None if it cannot)."""
    if product.shape == shape:
        return product
    dims = broadcast_dims(tuple(product.shape), tuple(shape))
    if dims is None:
        return None
    return product.sum(dims, keepdim=True).reshape(shape)


def _product(value, function, upstream: torch.Tensor, shape: torch.Size):
    """Return a candidate local derivative times the upstream gradient, summed to `shape`."""
    if value is None:
        return _reduced(upstream, shape)
    with torch.no_grad():
        return _reduced(function(value.to(upstream.dtype)) * upstream, shape)


def _broadcasts(value: torch.Tensor, upstream: torch.Tensor) -> bool:
    """Return whether `value` broadcasts against `upstream` without growing it."""
    try:
        return torch.broadcast_shapes(value.shape, upstream.shape) == upstream.shape
    except RuntimeError:
        return False


def _rough(answer: torch.Tensor, stacked: torch.Tensor, upstream: torch.Tensor, function):
    """Return, for each stacked value, whether `function(value) * upstream` may be `answer`:
    judged loosely, on a few entries where the shapes agree, so that the candidates are tried
    in a handful of tensor operations and only the likely ones in full."""
    with torch.no_grad():
        if answer.shape == upstream.shape:
            idx = torch.linspace(0, answer.numel() - 1, PROBES).long()
            picked = function(stacked.reshape(len(stacked), -1)[:, idx])
            made, want = picked * upstream.reshape(-1)[idx], answer.reshape(-1)[idx]
        else:
            dims = broadcast_dims(tuple(upstream.shape), tuple(answer.shape))
            if dims is None:  # the answer is larger than the upstream gradient: no candidate
                return [False] * len(stacked)
            full = function(stacked) * upstream
            made = full.sum(tuple(d + 1 for d in dims), keepdim=True)
            made, want = made.reshape(len(stacked), -1), answer.reshape(-1)
    scale = max(float(answer.abs().max()), 1e-3)
    close = torch.isclose(made, want.expand_as(made), rtol=1e-2, atol=1e-4 * scale)
    return close.all(1).tolist()


def _exact(answer: torch.Tensor, value, function, upstream: torch.Tensor) -> bool:
    """Return whether a candidate is `answer`, to the tolerance of `alike`."""
    candidate = _product(value, function, upstream, answer.shape)
    if candidate is None or not bool(torch.isfinite(candidate).all()):
        return False
    return alike(answer, candidate)


def _first(answer: torch.Tensor, values: Mapping[str, torch.Tensor], upstream: torch.Tensor):
    """Return (label, value, function) of the first candidate that is `answer`, or None."""
    if _exact(answer, None, None, upstream):
        return "1", None, None
    if not values:
        return None
    names = list(values)
    stacked = torch.stack([values[k].to(upstream.dtype).expand(upstream.shape) for k in names])
    for form, function in SHAPES:
        for name, maybe in zip(names, _rough(answer, stacked, upstream, function), strict=True):
            if maybe and _exact(answer, values[name], function, upstream):
                return form.format(name, name), values[name], function
    return None


def _twice(answer: torch.Tensor, right, upstream: torch.Tensor) -> bool:
    """Return whether `answer` is the right local derivative applied twice."""
    if right is None or right[1] is None:
        return False
    function = right[2]
    return _exact(answer, right[1], lambda t: function(t) * function(t), upstream)


def local_derivative(
    got: torch.Tensor,
    expected: torch.Tensor,
    values: Mapping[str, torch.Tensor],
    upstream: torch.Tensor,
) -> Derivative | None:
    """Return the wrong local derivative the answer multiplied the upstream gradient by."""
    if alike(got, expected):
        return None
    usable = {k: v for k, v in values.items() if v.is_floating_point() and _broadcasts(v, upstream)}
    used, right = _first(got, usable, upstream), _first(expected, usable, upstream)
    if used:
        return Derivative(used[0], right[0] if right else "")
    return Derivative(right[0], right[0], twice=True) if _twice(got, right, upstream) else None


def local_only(got: torch.Tensor, expected: torch.Tensor, upstream: torch.Tensor) -> bool:
    """Return whether `got` is the local derivative alone, not yet times the upstream gradient."""
    if got.shape != upstream.shape or got.shape != expected.shape or alike(got, expected):
        return False
    return alike(got * upstream, expected)


def power_kept(
    got: torch.Tensor, output: torch.Tensor, upstream: torch.Tensor, power: float | None
) -> bool:
    """Return whether `got` is `power * output * upstream`: the power rule's exponent brought
    down but not lowered (`-0.5 * x**-0.5` for the derivative of `x**-0.5`)."""
    if power is None or power in (0.0, 1.0):
        return False
    made = _reduced(power * output.to(upstream.dtype) * upstream, got.shape)
    return made is not None and alike(got, made)


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
        if not alike(expected, _scaled(expected, onehot)) and _fits(got, onehot):
            return "alone", name
    return None


def _first_fit(got: torch.Tensor, patterns: list[tuple[str, torch.Tensor]]) -> str:
    """Return the name of the first pattern `got` is a non-zero multiple of (`_fits` on each,
    in order), or "": every pattern weighed at once."""
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


def missing_factor(
    got: torch.Tensor, expected: torch.Tensor, values: Mapping[str, torch.Tensor]
) -> tuple[str, bool] | None:
    """Return (name, left out) when `got` is the gradient divided by a tensor in scope (its
    factor left out), or multiplied by one (False: one factor too many)."""
    for name, value in values.items():
        if not value.is_floating_point() or not _broadcasts(value, expected) or value.numel() < 2:
            continue
        value = value.to(expected.dtype)
        if alike(got * value, expected):
            return name, True
        if alike(got, expected * value):
            return name, False
    return None


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


def _scaled(got: torch.Tensor, pattern: torch.Tensor) -> torch.Tensor:
    """Return the multiple of `pattern` nearest to `got`."""
    norm = float((pattern * pattern).sum())
    return pattern * (float((got * pattern).sum()) / norm) if norm else pattern * 0.0


def _fits(got: torch.Tensor, pattern: torch.Tensor) -> bool:
    """Return whether `got` is a non-zero multiple of `pattern`."""
    fitted = _scaled(got, pattern)
    return bool(fitted.any()) and bool(got.any()) and alike(got, fitted)


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
            if any(_fits(got, made.to(got.dtype)) for made in _sum_products(value, up)):
                return name, up_name
    return None


def _sum_products(value: torch.Tensor, up: torch.Tensor):
    """Yield the products of batch sums a learner may write: over every leading dim at once,
    then over the batch (dim 0) alone, the rest multiplied as matrices."""
    a, b = value.double(), up.double()
    yield a.reshape(-1, a.shape[-1]).sum(0)[:, None] * b.reshape(-1, b.shape[-1]).sum(0)[None, :]
    if a.dim() > 2:
        yield a.sum(0).reshape(-1, a.shape[-1]).T @ b.sum(0).reshape(-1, b.shape[-1])


POWER = re.compile(r"\*\*\s*\(?\s*(-?\d+(?:\.\d+)?)")


def exponent(line: str) -> float | None:
    """Return the exponent of a power in a forward line (`x ** -0.5` -> -0.5), if any."""
    found = POWER.search(line.split("#")[0])
    return float(found.group(1)) if found else None


def power_slip(ratio: float, power: float | None) -> bool:
    """Return whether an answer `ratio` times the gradient left out the exponent the power
    rule brings down (or brought it down twice)."""
    if power is None or power in (0.0, 1.0) or not math.isfinite(ratio):
        return False
    slips = (1.0 / power, power, (power - 1.0) / power)  # left out, twice, the new exponent
    return any(abs(ratio - k) <= 1e-3 * abs(k) for k in slips)


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
