"""The scenario language: lower setup and forward programs to statements that each assign one
name once, at load time, so that every tensor the programs make has a value, a gradient and
consumers. What a program may hold, and what each construct becomes:

- `name = expr`: kept as written.
- `a, b = expr` (tuple unpacking): one statement per name, `a, _ = expr` and `_, b = expr`.
- A name written again (`x = x + y`, `x += y`, `x.mul_(m)`): a new version. The last version
  keeps the name, earlier ones are `x_1`, `x_2`, ... in the order written, and every read names
  the version current at its line. `x += y` runs as `x = x + y` and `x.mul_(m)` as
  `x = x.mul(m)`, so an earlier version keeps its value.
- `for i in range(3):` over literal integers: unrolled, `i` replaced by each number in turn.

Anything else is refused with its program and line.
"""

from __future__ import annotations

import ast
import copy
import re
from collections import Counter
from dataclasses import dataclass

from grader.course.schema import SchemaError

MAX_STATEMENTS = 500  # after unrolling, over both programs
# `# (shape)`, optionally followed by the reason for the line: `# (1, n_hidden) Bessel: ...`
SHAPE_COMMENT = re.compile(r"#\s*(\([^()]*\))(?:\s+(\S.*?))?\s*$")
SUPPORTED = (
    "`name = ...`, `a, b = ...`, `name += ...`, an in-place method such as `name.mul_(m)`, "
    "or a `for` loop over `range` of literal numbers"
)


@dataclass(frozen=True)
class Statement:
    """One line of a program: `target = expr  # (shape) why`."""

    target: str
    reads: tuple[str, ...]
    source: str
    shape: str
    line: int
    note: str = ""  # the lecture's reason for writing the line this way, if any
    differentiable: bool = True  # False for a mask or indices: no gradient, not a consumer
    file_line: int = 0  # the line in its file, counted from 1 (0 where not known)

    def place(self, path, program: str) -> str:
        """Name this line for an author: the file and the line there, then the program's line
        (`01_mlp/scenario.toml:52: forward.code line 4`)."""
        at = f"{path}:{self.file_line}" if self.file_line else str(path)
        return f"{at}: {program}.code line {self.line}"


@dataclass
class _Write:
    """One write before renaming: the names it assigns ("_" for a discarded slot)."""

    names: tuple[str, ...]
    value: ast.expr
    line: int
    node: ast.stmt
    as_written: bool  # a plain `name = expr` outside any loop


def lower(programs: list[tuple[str, str]]) -> list[tuple[Statement, ...]]:
    """Lower programs given as (source, where) that run one after the other, as one namespace.

    `lower([("w = torch.randn(3)", "setup"), ("w2 = w * w\\nw2 += 1", "forward")])` gives
    `w` in setup, then `w2_1 = w * w` and `w2 = w2_1 + 1` in forward.
    """
    writes, lines = [], []
    for source, where in programs:
        tree = _parse(source, where)
        writes.append(_flatten(tree.body, where, {}))
        lines.append(source.splitlines())
    total = sum(len(w) for w in writes)
    if total > MAX_STATEMENTS:
        where = programs[-1][1]
        raise SchemaError(where, f"unrolls to {total} statements; at most {MAX_STATEMENTS}")
    return _rename(writes, lines, [where for _, where in programs])


def _parse(source: str, where: str) -> ast.Module:
    """Parse a program; a syntax error names its line."""
    try:
        return ast.parse(source)
    except SyntaxError as err:
        raise SchemaError(where, f"syntax error on line {err.lineno}: {err.msg}") from err


def _flatten(nodes: list[ast.stmt], where: str, consts: dict[str, int]) -> list[_Write]:
    """Return the writes of a block in order, loops unrolled."""
    writes = []
    for node in nodes:
        if isinstance(node, ast.For):
            for value in _loop_range(node, where):
                writes += _flatten(node.body, where, consts | {node.target.id: value})
        else:
            writes.append(_write(node, where, consts))
    return writes


def _loop_range(node: ast.For, where: str) -> range:
    """Return the literal range a `for` loop runs over, or refuse the loop."""
    at = f"line {node.lineno}"
    call = node.iter
    literal = (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "range"
        and not call.keywords
        and 1 <= len(call.args) <= 3
        and all(_int_literal(a) is not None for a in call.args)
    )
    if not literal:
        raise SchemaError(where, f"{at}: a loop must run over `range` of literal numbers")
    if not isinstance(node.target, ast.Name) or node.orelse:
        raise SchemaError(where, f"{at}: a loop needs one plain loop variable and no `else`")
    steps = range(*(_int_literal(a) for a in call.args))
    if len(steps) > MAX_STATEMENTS:
        raise SchemaError(where, f"{at}: the loop runs {len(steps)} times; unrolled, too long")
    return steps


def _int_literal(node: ast.expr) -> int | None:
    """Return the integer a literal (possibly negative) stands for."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_literal(node.operand)
        return None if inner is None else -inner
    ok = isinstance(node, ast.Constant) and type(node.value) is int
    return node.value if ok else None


def _write(node: ast.stmt, where: str, consts: dict[str, int]) -> _Write:
    """Turn one statement into a write, with loop variables replaced by their numbers."""
    at = f"line {node.lineno}"
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        names = _targets(node.targets[0], where, at)
        value = node.value
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        names = (node.target.id,)
        value = ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value)
    elif _in_place_call(node):
        names, value = _in_place(node, where, at)
    else:
        raise SchemaError(where, f"{at}: write it as {SUPPORTED}")
    _refuse_hidden_in_place(value, where, at)
    bound = [n for n in names if n in consts]
    if bound:
        raise SchemaError(where, f"{at}: `{bound[0]}` is the loop variable; it cannot be assigned")
    value = _Substitute(consts).visit(copy.deepcopy(value))
    plain = isinstance(node, ast.Assign) and len(names) == 1 and not consts
    plain = plain and isinstance(node.targets[0], ast.Name)
    return _Write(names, value, node.lineno, node, plain)


def _refuse_hidden_in_place(value: ast.expr, where: str, at: str) -> None:
    """Refuse `y = x.add_(1)`: it would change `x` behind its version's back."""
    for node in ast.walk(value):
        if _in_place_call(ast.Expr(node)):
            name, method = node.func.value.id, node.func.attr
            raise SchemaError(
                where,
                f"{at}: `{name}.{method}(...)` changes `{name}` in place inside an expression; "
                f"put it on a line of its own or use `{name}.{method[:-1]}(...)`",
            )


def _targets(target: ast.expr, where: str, at: str) -> tuple[str, ...]:
    """Return the names an assignment writes: one name, or a flat tuple of names."""
    if isinstance(target, ast.Name):
        return (target.id,)
    if isinstance(target, ast.Tuple | ast.List) and all(
        isinstance(e, ast.Name) for e in target.elts
    ):
        return tuple(e.id for e in target.elts)
    raise SchemaError(
        where,
        f"{at}: assign to names only (`x[...] = ...`, `x.a = ...` and `*rest` are not "
        "supported); build the new tensor and give it a name, e.g. `y = x.masked_fill(m, 0)`",
    )


def _in_place_call(node: ast.stmt) -> bool:
    """Return whether a statement is a bare call `name.method_(...)`."""
    call = node.value if isinstance(node, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.attr.endswith("_")
        and not call.func.attr.startswith("_")
    )


def _in_place(node: ast.Expr, where: str, at: str) -> tuple[tuple[str, ...], ast.expr]:
    """Turn `x.mul_(m)` into the write `x = x.mul(m)`."""
    import torch

    call = node.value
    method = call.func.attr[:-1]
    if not hasattr(torch.Tensor, method):
        raise SchemaError(
            where,
            f"{at}: `{call.func.attr}` has no out-of-place form `{method}`; write the new "
            f"value as `{call.func.value.id} = ...`",
        )
    value = copy.deepcopy(call)
    value.func.attr = method
    return (call.func.value.id,), value


class _Substitute(ast.NodeTransformer):
    """Replace the reads of loop variables by their numbers."""

    def __init__(self, consts: dict[str, int]):
        self.consts = consts

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.consts:
            return ast.copy_location(ast.Constant(self.consts[node.id]), node)
        return node


class _Rename(ast.NodeTransformer):
    """Make every read name the version current at its line."""

    def __init__(self, current: dict[str, str]):
        self.current, self.changed = current, False

    def visit_Name(self, node: ast.Name) -> ast.Name:
        version = self.current.get(node.id, node.id)
        if version != node.id:
            self.changed = True
            return ast.copy_location(ast.Name(version, node.ctx), node)
        return node


def _rename(writes: list[list[_Write]], lines: list[list[str]], wheres: list[str]) -> list:
    """Give every write its version's name and every read the version it sees."""
    counts = Counter(n for program in writes for w in program for n in w.names if n != "_")
    _check_versions(writes, counts, wheres)
    seen, current, programs = Counter(), {}, []
    for program, text in zip(writes, lines, strict=True):
        statements = []
        for write in program:
            rename = _Rename(current)
            value = rename.visit(copy.deepcopy(write.value))
            versions = []
            for name in write.names:
                if name != "_":
                    seen[name] += 1
                versions.append(_version(name, seen[name], counts[name]))
            statements += _statements(write, value, versions, rename.changed, text)
            current.update((n, v) for n, v in zip(write.names, versions, strict=True) if n != "_")
        programs.append(tuple(statements))
    return programs


def _version(name: str, index: int, count: int) -> str:
    """Return the name of a name's index-th write: the last keeps the name."""
    return name if name == "_" or index == count else f"{name}_{index}"


def _check_versions(writes: list[list[_Write]], counts: Counter, wheres: list[str]) -> None:
    """Refuse a program whose own name clashes with the version of another name."""
    for program, where in zip(writes, wheres, strict=True):
        for write in program:
            for name in write.names:
                base, _, number = name.rpartition("_")
                clash = number.isdigit() and name == f"{base}_{int(number)}"
                if clash and 0 < int(number) < counts.get(base, 0):
                    raise SchemaError(
                        where,
                        f"line {write.line}: `{name}` is also the name of write {number} of "
                        f"`{base}`, which is written {counts[base]} times; rename one",
                    )


def _statements(write: _Write, value, versions: list[str], renamed: bool, text: list[str]):
    """Return the statements of one write, one per name it keeps."""
    line = text[write.line - 1]
    match = SHAPE_COMMENT.search(line)
    shape = match.group(1) if match else ""
    note = (match.group(2) or "") if match else ""
    reads = tuple(dict.fromkeys(n.id for n in ast.walk(value) if isinstance(n, ast.Name)))
    out = []
    for i, version in enumerate(versions):
        if version == "_":
            continue
        if write.as_written and not renamed and version == write.names[0]:
            source = ast.get_source_segment("\n".join(text), write.node) or line
        else:
            source = ast.unparse(_assignment(versions, i, value))
        out.append(Statement(version, reads, source, shape, write.line, note))
    return out


def _assignment(versions: list[str], keep: int, value: ast.expr) -> ast.Assign:
    """Return `name = value`, or for unpacking `_, name = value` keeping one slot."""
    if len(versions) == 1:
        target = ast.Name(versions[0], ast.Store())
    else:
        slots = [ast.Name(v if i == keep else "_", ast.Store()) for i, v in enumerate(versions)]
        target = ast.Tuple(slots, ast.Store())
    return ast.fix_missing_locations(ast.Assign([target], value, lineno=0))
