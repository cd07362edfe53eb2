"""Rewrites of the learner's code made on its syntax tree, never run here: the same code with one
change a sentence may propose (`@` for `*` or back, a transpose, a reduction's dim,
`num_classes`, `+=` for `=`, one index for a chained one; a bracket precedence left out is
brackets.py's). The grader runs a rewrite in the sandbox, as it runs the learner's code, and
proposes it only when its output is autograd's answer.

    >>> [r.after for r in operator_swap(ast.parse("dh = dlogits * W2.T"), 1, ast.Mult, ast.MatMult)]
    ['dlogits @ W2.T']
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "MAX_REWRITES",
    "Rewrite",
    "accumulate",
    "has_loop",
    "index_add_flat",
    "index_once",
    "matmul_as_product",
    "node_at",
    "one_hot_calls",
    "one_hot_classes",
    "operator_swap",
    "put_in_place",
    "reduced_over",
    "sum_over",
    "transposes",
]

MAX_REWRITES = 4  # rewrites of one kind tried on one answer, each one sandbox run at most


@dataclass(frozen=True)
class Rewrite:
    """The learner's whole code with one change (`code`), and the changed expression as they
    wrote it (`before`) and as rewritten (`after`)."""

    code: str
    before: str
    after: str


def _rewrites(tree: ast.Module, change: Callable[[ast.AST], ast.AST | None]) -> list[Rewrite]:
    """Return one rewrite per node `change` rewrites (one node changed at a time)."""
    found: list[Rewrite] = []
    for index, node in enumerate(ast.walk(tree)):
        if change(node) is None:
            continue
        module = copy.deepcopy(tree)
        twin = node_at(module, index)
        new = change(twin)
        if put_in_place(module, twin, new):
            code = ast.unparse(ast.fix_missing_locations(module))
            found.append(Rewrite(code, ast.unparse(node), ast.unparse(new)))
        if len(found) >= MAX_REWRITES:
            break
    return found


def node_at(module: ast.AST, index: int) -> ast.AST:
    """Return the node at a position of `ast.walk` (the same in a deep copy)."""
    return next(n for i, n in enumerate(ast.walk(module)) if i == index)


def put_in_place(module: ast.Module, old: ast.AST, new: ast.AST) -> bool:
    """Put `new` where `old` is in the module; return whether it was found."""
    for parent in ast.walk(module):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return True
            if isinstance(value, list) and any(v is old for v in value):
                value[[i for i, v in enumerate(value) if v is old][0]] = new
                return True
    return False


def _on_line(node: ast.AST, line: int | None) -> bool:
    """Return whether a node is on the given line of the code (any line when None)."""
    return line is None or getattr(node, "lineno", None) == line


def operator_swap(tree: ast.Module, line: int | None, old: type, new: type) -> list[Rewrite]:
    """Return the code with one `old` operator on the line made `new` (`*` -> `@`, or back)."""

    def change(node):
        if isinstance(node, ast.BinOp) and isinstance(node.op, old) and _on_line(node, line):
            return ast.BinOp(node.left, new(), node.right)
        return None

    return _rewrites(tree, change)


def _toggled(node: ast.expr) -> ast.expr:
    """Return `x.T` for `x`, and `x` for `x.T`."""
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return node.value
    return ast.Attribute(node, "T", ast.Load())


ARRANGEMENTS = tuple(
    (swap, flip_left, flip_right)
    for swap in (False, True)
    for flip_left in (False, True)
    for flip_right in (False, True)
)


def transposes(tree: ast.Module, line: int | None, op: type = ast.MatMult) -> list[Rewrite]:
    """Return the code with one product on the line (`op`: `@`, or `*` to be made one) written
    as a matrix product in each other arrangement: either operand transposed, both, swapped
    (every product of the line, each arrangement; the grader tries those whose shapes fit)."""
    found: list[Rewrite] = []
    for index, node in enumerate(ast.walk(tree)):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, op) and _on_line(node, line)):
            continue
        for swap, flip_left, flip_right in ARRANGEMENTS:
            if op is ast.MatMult and not (swap or flip_left or flip_right):
                continue
            module = copy.deepcopy(tree)
            twin = node_at(module, index)
            left, right = (twin.right, twin.left) if swap else (twin.left, twin.right)
            left = _toggled(left) if flip_left else left
            new = ast.BinOp(left, ast.MatMult(), _toggled(right) if flip_right else right)
            put_in_place(module, twin, new)
            code = ast.unparse(ast.fix_missing_locations(module))
            found.append(Rewrite(code, ast.unparse(node), ast.unparse(new)))
    return found


def _untransposed(node: ast.expr) -> ast.expr:
    """Return an operand without its `.T`."""
    return node.value if isinstance(node, ast.Attribute) and node.attr == "T" else node


def _sum(node: ast.expr, dims: tuple[int, ...], keepdim: bool) -> ast.expr:
    """Return `node.sum(dims, keepdim=True)`."""
    dim = ast.Constant(dims[0]) if len(dims) == 1 else ast.Tuple([ast.Constant(d) for d in dims])
    keywords = [ast.keyword("keepdim", ast.Constant(True))] if keepdim else []
    return ast.Call(ast.Attribute(node, "sum", ast.Load()), [dim], keywords)


def matmul_as_product(tree: ast.Module, dim: int, keepdim: bool) -> list[Rewrite]:
    """Return the code with one `a.T @ b` (or `a @ b.T`) written `(a * b).sum(dim)`."""

    def change(node):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            product = ast.BinOp(_untransposed(node.left), ast.Mult(), _untransposed(node.right))
            return _sum(product, (dim,), keepdim)
        return None

    return _rewrites(tree, change)


REDUCTIONS = ("sum", "mean")


def _reduction(node: ast.AST, calls=REDUCTIONS) -> bool:
    """Return whether a node is a reduction call, `x.sum(...)` or `torch.sum(x, ...)` (or a
    call of `calls`)."""
    func = getattr(node, "func", None)
    return isinstance(node, ast.Call) and isinstance(func, ast.Attribute) and func.attr in calls


def _dim_slot(node: ast.Call) -> tuple[str, int | str] | None:
    """Return where a reduction names its dim: ("arg", index) or ("keyword", name)."""
    module = isinstance(node.func.value, ast.Name) and node.func.value.id in ("torch", "F")
    for keyword in node.keywords:
        if keyword.arg in ("dim", "axis"):
            return "keyword", keyword.arg
    index = 1 if module else 0
    return ("arg", index) if len(node.args) > index else None


def _set_dim(node: ast.Call, wrong: set[int], right: int, keepdim: bool) -> bool:
    """Make a reduction over a `wrong` dim one over `right`; return whether it changed."""
    slot = _dim_slot(node)
    if slot is None:
        return False
    kind, where = slot
    current = (
        node.args[where]
        if kind == "arg"
        else next(k.value for k in node.keywords if k.arg == where)
    )
    if not isinstance(current, ast.Constant) or current.value not in wrong:
        return False
    if kind == "arg":
        node.args[where] = ast.Constant(right)
    else:
        next(k for k in node.keywords if k.arg == where).value = ast.Constant(right)
    node.keywords = [k for k in node.keywords if k.arg not in ("keepdim", "keepdims")]
    node.keywords += [ast.keyword("keepdim", ast.Constant(True))] if keepdim else []
    return True


def reduced_over(
    tree: ast.Module, wrong: set[int], right: int, keepdim: bool, calls=REDUCTIONS
) -> list[Rewrite]:
    """Return the code with every reduction (or other call of `calls` that takes a dim, such as
    `softmax`) over a `wrong` dim made one over `right`, all at once: a formula sums over one
    dim throughout."""
    module = copy.deepcopy(tree)
    keep = keepdim and calls == REDUCTIONS
    changed = [
        n for n in ast.walk(module) if _reduction(n, calls) and _set_dim(n, wrong, right, keep)
    ]
    if not changed:
        return []
    code = ast.unparse(ast.fix_missing_locations(module))
    return [Rewrite(code, ast.unparse(tree), code)]


def sum_over(tree: ast.Module, dims: tuple[int, ...], keepdim: bool) -> list[Rewrite]:
    """Return the code with one reduction made a sum over `dims` (`.sum()` -> `.sum(0)`, or
    `.sum(1)` -> `.sum(0)`)."""

    def change(node):
        if isinstance(node, ast.Call) and _reduction(node) and node.func.attr == "sum":
            receiver = node.func.value
            return _sum(receiver, dims, keepdim)
        return None

    return _rewrites(tree, change)


ONE_HOT = ("one_hot",)


def one_hot_calls(tree: ast.Module) -> list[ast.Call]:
    """Return the calls of `F.one_hot(x)` that give no `num_classes` (one argument only)."""
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", getattr(node.func, "id", "")) in ONE_HOT
        and len(node.args) == 1
        and not any(k.arg == "num_classes" for k in node.keywords)
    ]


def one_hot_classes(tree: ast.Module, width: str) -> list[Rewrite]:
    """Return the code with `num_classes=width` given to every one-hot that has none."""
    module = copy.deepcopy(tree)
    calls = one_hot_calls(module)
    if not calls:
        return []
    before = ast.unparse(calls[0])
    for call in calls:
        call.keywords.append(ast.keyword("num_classes", ast.Name(width, ast.Load())))
    code = ast.unparse(ast.fix_missing_locations(module))
    return [Rewrite(code, before, ast.unparse(calls[0]))]


def has_loop(tree: ast.Module) -> bool:
    """Return whether the code has a loop."""
    return any(isinstance(n, ast.For | ast.While) for n in ast.walk(tree))


def accumulate(tree: ast.Module) -> list[Rewrite]:
    """Return the code with every indexed assignment inside a loop made `+=` (`dC[ix] = v` ->
    `dC[ix] += v`): each repeat then adds to what is there."""
    module = copy.deepcopy(tree)
    changed = None
    for loop in [n for n in ast.walk(module) if isinstance(n, ast.For)]:
        for node in ast.walk(loop):
            body = getattr(node, "body", None)
            for i, stmt in enumerate(body if isinstance(body, list) else []):
                subscripted = isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                if subscripted and isinstance(stmt.targets[0], ast.Subscript):
                    body[i] = ast.AugAssign(stmt.targets[0], ast.Add(), stmt.value)
                    changed = changed or (stmt, body[i])
    if changed is None:
        return []
    code = ast.unparse(ast.fix_missing_locations(module))
    return [Rewrite(code, ast.unparse(changed[0]), ast.unparse(changed[1]))]


def index_add_flat(tree: ast.Module) -> list[Rewrite]:
    """Return the code with `index_add_` along dim 0, given a flat index and one source row per
    index: `t.index_add_(0, index.reshape(-1), source.reshape(-1, source.shape[-1]))` (an
    argument already so shaped is kept as written)."""

    def change(node):
        func = getattr(node, "func", None)
        if not (isinstance(node, ast.Call) and getattr(func, "attr", "") == "index_add_"):
            return None
        if len(node.args) != 3:
            return None
        index, source = node.args[1:]
        flat = ast.unparse(index) if _reshaped(index, 1) else f"{_bracket(index)}.reshape(-1)"
        rows = ast.unparse(source) if _reshaped(source, 2) else _rows(source)
        call = f"{ast.unparse(func.value)}.index_add_(0, {flat}, {rows})"
        return ast.parse(call, mode="eval").body

    return _rewrites(tree, change)


def _reshaped(node: ast.expr, dims: int) -> bool:
    """Return whether an argument is a `.view`/`.reshape` to `dims` dims, the first -1."""
    func = getattr(node, "func", None)
    if not isinstance(node, ast.Call) or getattr(func, "attr", "") not in ("view", "reshape"):
        return False
    first = ast.unparse(node.args[0]) if node.args else ""
    return len(node.args) == dims and first == "-1"


def _rows(source: ast.expr) -> str:
    """Return a source reshaped to one row per index, its last dim kept."""
    text = _bracket(source)
    return f"{text}.reshape(-1, {text}.shape[-1])"


def _bracket(node: ast.expr) -> str:
    """Return code bracketed unless it is one operand, so a method may follow it."""
    text = ast.unparse(node)
    one = isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Subscript)
    return text if one else f"({text})"


def index_once(tree: ast.Module) -> list[Rewrite]:
    """Return the code with an assignment through chained indexing (`a[i][j] = v`, which writes
    into a copy) indexed once (`a[i, j] = v`)."""

    def change(node):
        if not isinstance(node, ast.Assign | ast.AugAssign):
            return None
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Subscript)):
            return None
        inner = target.value
        once = ast.Subscript(inner.value, ast.Tuple([inner.slice, target.slice]), ast.Store())
        if isinstance(node, ast.Assign):
            return ast.Assign([once], node.value)
        return ast.AugAssign(once, node.op, node.value)

    return _rewrites(tree, change)
