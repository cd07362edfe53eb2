"""Static checks on the learner's source, done in the parent without running it."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

MAX_CODE_BYTES = 100_000
# Attributes that are autograd, or a way back to it; strings and comments never count.
AUTOGRAD_ATTRS = {
    "backward", "grad", "requires_grad", "requires_grad_", "retain_grad", "autograd", "grad_fn",
    "register_hook", "register_post_accumulate_grad_hook", "enable_grad", "set_grad_enabled",
    "inference_mode", "Parameter", "func", "forward_ad", "functional", "_make_dual",
    "_unpack_dual", "run_backward", "_execution_engine", "_C",
}  # fmt: skip
AUTOGRAD_MODULES = ("torch.autograd", "torch.func", "functorch", "torch._C", "torch._functorch")
# Plain names a learner may well give their own variables; as attributes they still count.
LEARNER_NAMES = {"grad", "func", "functional", "backward", "modules", "Parameter", "requires_grad"}
# Names that reach other names by a computed string, or load code the rules cannot read.
DYNAMIC_NAMES = {
    "getattr", "setattr", "delattr", "hasattr", "__import__", "importlib", "exec", "eval",
    "compile", "globals", "vars", "locals", "__builtins__", "__dict__", "__subclasses__",
    "__globals__", "__getattribute__", "__closure__", "__code__", "modules", "gc", "ctypes",
    "_imp", "inspect", "operator", "attrgetter", "methodcaller", "marshal", "pickle", "types",
}  # fmt: skip
NOT_TEXT = re.compile("[\x00\ud800-\udfff]")  # a NUL, or half of a UTF-16 surrogate pair


@dataclass(frozen=True)
class Problem:
    """Something wrong with the source: what, and on which line and column."""

    what: str
    line: int | None = None
    column: int | None = None
    dynamic: bool = False  # names dynamic access (getattr, exec, ...) rather than autograd


def parse(code: str) -> ast.Module | Problem:
    """Parse the learner's code, or return the problem (a syntax error has line and column).

    A problem without a line is not a syntax error: the code is too long or too deeply nested.
    """
    if len(code.encode("utf-8", "replace")) > MAX_CODE_BYTES:
        return Problem(f"it is longer than {MAX_CODE_BYTES // 1000} kB")
    if found := NOT_TEXT.search(code):
        what = f"the character U+{ord(found.group()):04X} cannot appear in code"
        return Problem(what, *_position(code, found.start()))
    try:
        return ast.parse(code, filename="<your code>")
    except SyntaxError as err:
        return Problem(err.msg, err.lineno, err.offset)
    except (RecursionError, MemoryError):
        return Problem("it is nested too deeply to read")


def _position(code: str, index: int) -> tuple[int, int]:
    """Return the 1-based line and column of the character at index."""
    line_start = code.rfind("\n", 0, index) + 1
    return code.count("\n", 0, index) + 1, index - line_start + 1


def autograd_use(tree: ast.Module) -> Problem | None:
    """Return the first use of autograd in the code, if any."""
    for node in ast.walk(tree):
        found = _autograd_node(node)
        if found:
            line, column = getattr(node, "lineno", None), getattr(node, "col_offset", None)
            return Problem(found, line, column, is_dynamic(found))
    return None


def _autograd_node(node: ast.AST) -> str:
    """Return a description of node if it touches autograd or reaches names dynamically."""
    if isinstance(node, ast.Attribute):
        dotted = _dotted(node)
        module = next((m for m in AUTOGRAD_MODULES if dotted.startswith(m)), "")
        return module or _name_use(node.attr, prefix=".")
    if isinstance(node, ast.Name) and node.id not in LEARNER_NAMES:
        return _name_use(node.id)
    if isinstance(node, ast.Import | ast.ImportFrom):
        names = [getattr(node, "module", None) or ""] + [a.name for a in node.names]
        for name in names:
            if name.startswith(AUTOGRAD_MODULES) or name.split(".")[0] in DYNAMIC_NAMES:
                return name
            if name in AUTOGRAD_ATTRS:
                return name
    return ""


def _name_use(name: str, prefix: str = "") -> str:
    """Return how a plain or attribute name touches autograd, or ''."""
    if name in AUTOGRAD_ATTRS or name == "functorch":
        return prefix + name
    if name in DYNAMIC_NAMES:
        return prefix + name
    return ""


def is_dynamic(what: str) -> bool:
    """Return whether a problem names dynamic access rather than autograd itself."""
    return what.lstrip(".").split(".")[0] in DYNAMIC_NAMES


def _dotted(node: ast.AST) -> str:
    """Return `a.b.c` for an attribute chain on a plain name, else ''."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else ""


def statements_changing(tree: ast.Module, name: str) -> str:
    """Return the source of the top-level statements that assign or change `name` in place
    (`name = ...`, `name += ...`, `name[...] = ...`, `name.add_(...)`, loops doing so)."""
    chosen = [stmt for stmt in tree.body if _changes(stmt, name)]
    return "\n".join(ast.unparse(stmt) for stmt in chosen)


def statements_needed(
    tree: ast.Module, name: str, provided: set[str], keep_out: set[str] = frozenset()
) -> str:
    """Return the statements that change `name` (as `statements_changing`), with the earlier
    top-level statements that define what they read and `provided` lacks (a helper such as
    `slope = h * (1 - h)`), in the code's order; names in `keep_out` are never followed."""
    body = tree.body
    chosen = {i for i, stmt in enumerate(body) if _changes(stmt, name)}
    frontier = sorted(chosen)
    while frontier:
        i = frontier.pop()
        for read in _reads(body[i]) - provided - keep_out - {name}:
            j = next((k for k in range(i - 1, -1, -1) if _changes(body[k], read)), None)
            if j is not None and j not in chosen:
                chosen.add(j)
                frontier.append(j)
    return "\n".join(ast.unparse(body[i]) for i in sorted(chosen))


def _reads(stmt: ast.stmt) -> set[str]:
    """Return the names a statement reads."""
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _changes(stmt: ast.stmt, name: str) -> bool:
    """Return whether a statement stores to `name` or calls one of its in-place methods."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.Subscript | ast.Attribute) and isinstance(node.ctx, ast.Store):
            base = node.value
            if isinstance(base, ast.Name) and base.id == name:
                return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr.endswith("_")
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name
        ):
            return True
    return False
