"""Check a learner's parsed code against the exercise language, on the tree alone.

Nothing is executed or imported: the tree (parsed under the upload caps, grader/course/rules.py)
is walked once, every node and name compared with what declared.py allows, and the first
construct outside the language, in reading order, is returned as a `Refusal`.

    >>> first_refusal(ast.parse("d = torch.ops.aten.tanh_backward(g, y)"), Language())
    Refusal(construct='torch.ops', line=1, column=4, kind='attribute', nearest=())
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from . import declared as d

# A refusal's kind: the voice says autograd, dynamic access and the rest in their own words.
AUTOGRAD, DYNAMIC, PRIVATE, IMPORT, SYNTAX, NAME, ATTRIBUTE = (
    "autograd", "dynamic", "private", "import", "syntax", "name", "attribute",
)  # fmt: skip
# Constructs named by their keyword, for a node that is not part of the language.
KEYWORDS = {
    "ClassDef": "class", "Try": "try", "TryStar": "try", "Raise": "raise", "Global": "global",
    "Nonlocal": "nonlocal", "Yield": "yield", "YieldFrom": "yield from", "Await": "await",
    "AsyncFunctionDef": "async def", "AsyncFor": "async for", "AsyncWith": "async with",
    "Match": "match", "With": "with",
}  # fmt: skip


@dataclass(frozen=True)
class Refusal:
    """A construct outside the exercise language: what, where, which kind, and the allowed
    names nearest to it (for a misspelt or unknown name)."""

    construct: str
    line: int | None
    column: int | None
    kind: str
    nearest: tuple[str, ...] = ()

    @property
    def autograd(self) -> bool:
        """Return whether the construct is autograd's (`.backward`, `torch.autograd`, ...)."""
        return self.kind == AUTOGRAD

    @property
    def dynamic(self) -> bool:
        """Return whether it reaches names by a string or loads code (`getattr`, `eval`, ...)."""
        return self.kind == DYNAMIC


@dataclass(frozen=True)
class Language:
    """The exercise language of one course: the declared attribute names, with those its
    course.toml adds (`added`, from declared.EXTRA only)."""

    added: tuple[str, ...] = ()
    attributes: frozenset[str] = field(default=d.ATTRIBUTES, repr=False)

    def widened(self, names: tuple[str, ...]) -> Language:
        """Return the language with these (already validated) attribute names added."""
        added = tuple(dict.fromkeys(self.added + tuple(names)))
        return replace(self, added=added, attributes=self.attributes | set(names))

    def by_family(self) -> dict[str, tuple[str, ...]]:
        """Return the attribute names by family title, those the course adds last."""
        found = {
            d.TITLES[f]: tuple(sorted(names, key=str.lower)) for f, names in d.FAMILIES.items()
        }
        if self.added:
            found[d.TITLES[d.EXTRA_FAMILY]] = self.added
        return found

    def refusal(self, tree: ast.Module) -> Refusal | None:
        """Return the first construct of the code outside this language, or None."""
        return first_refusal(tree, self)


LANGUAGE = Language()  # the exercise language every course starts from


def first_refusal(tree: ast.Module, language: Language) -> Refusal | None:
    """Return the refusal that comes first in the code; of two starting at one place, the one
    ending first (in `torch.ops.aten`, `torch.ops`)."""
    found = list(refusals(tree, language))
    return min(found, key=lambda pair: pair[1])[0] if found else None


# Declared nodes with nothing of their own to judge: contexts and operators (no children), and
# the rest, whose children are walked.
LEAVES = frozenset(kind for kind in d.NODES if not kind._fields)
JUDGED = (ast.Attribute, ast.Name, ast.arg, ast.FunctionDef, ast.keyword)
PLAIN = frozenset(d.NODES - LEAVES - set(JUDGED))


def refusals(tree: ast.Module, language: Language) -> Iterator[tuple[Refusal, tuple]]:
    """Yield every refusal in the code, each with its node's span (start, then end)."""
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        kind = type(node)
        if kind in LEAVES:
            continue
        if kind in PLAIN:
            todo.extend(ast.iter_child_nodes(node))
            continue
        refused, children = _judge(node, language)
        if refused is not None:
            yield _with_span(refused, node)
        todo.extend(children)


def _with_span(refused: Refusal, node: ast.AST) -> tuple[Refusal, tuple]:
    """Return the refusal with its node's span (start, then end), where the node has one."""
    span = tuple(getattr(node, k, 0) or 0 for k in ("lineno", "col_offset", "end_lineno"))
    return refused, span + (getattr(node, "end_col_offset", 0) or 0,)


def _judge(node: ast.AST, language: Language) -> tuple[Refusal | None, list[ast.AST]]:
    """Return the node's refusal, if any, and the children still to walk."""
    children = list(ast.iter_child_nodes(node))
    if isinstance(node, ast.Import | ast.ImportFrom):
        return _import(node), []
    if isinstance(node, ast.With):
        return (None, node.body) if _no_grad(node) else (_at(node, "with", SYNTAX), [])
    if type(node) not in d.NODES:
        return _at(node, KEYWORDS.get(type(node).__name__, type(node).__name__), SYNTAX), []
    if isinstance(node, ast.Attribute):
        if _dotted(node) == d.F_SPELLED_OUT:
            return None, []
        return _attribute(node, language), children
    if isinstance(node, ast.Name):
        return _name(node.id, node), children
    if isinstance(node, ast.arg):
        return _name(node.arg, node), children
    if isinstance(node, ast.FunctionDef):
        if node.decorator_list:
            decorator = node.decorator_list[0]
            return _at(decorator, f"@{ast.unparse(decorator)}", SYNTAX), []
        return _name(node.name, node), children
    if isinstance(node, ast.keyword) and node.arg is not None:
        return _keyword(node), children
    return None, children


def _at(node: ast.AST, construct: str, kind: str, nearest: tuple[str, ...] = ()) -> Refusal:
    """Return a refusal of a construct at a node's position."""
    column = getattr(node, "col_offset", None)
    return Refusal(construct, getattr(node, "lineno", None), column, kind, nearest)


def _name(name: str, node: ast.AST) -> Refusal | None:
    """Judge a name the code reads, assigns or declares as a parameter."""
    if name == "_":  # the usual throwaway name: not private, and never a builtin
        return None
    if name.startswith("_"):
        return _at(node, name, PRIVATE)
    if name in d.NAMES or name not in d.PYTHON_NAMES:
        return None  # the code's own names, the exercise's, or declared ones
    kind = DYNAMIC if name in d.DYNAMIC_WORDS else NAME
    return _at(node, name, kind, _nearest(name, d.NAMES))


def _attribute(node: ast.Attribute, language: Language) -> Refusal | None:
    """Judge an attribute name: declared, read (never assigned), not private."""
    attr, shown = node.attr, _shown(node)
    if attr in d.AUTOGRAD_WORDS:
        return _at(node, shown, AUTOGRAD)
    if attr.startswith("_"):
        return _at(node, shown, PRIVATE)
    if attr in d.DYNAMIC_WORDS:
        return _at(node, shown, DYNAMIC)
    if attr not in language.attributes:
        return _at(node, shown, ATTRIBUTE, _nearest(attr, language.attributes))
    if not isinstance(node.ctx, ast.Load):
        return _at(node, f"{shown} =", SYNTAX)
    return None


def _keyword(node: ast.keyword) -> Refusal | None:
    """Judge a keyword argument's name (`requires_grad=` asks autograd to record)."""
    if node.arg in d.AUTOGRAD_WORDS:
        return _at(node, f"{node.arg}=", AUTOGRAD)
    return _at(node, f"{node.arg}=", PRIVATE) if node.arg.startswith("_") else None


def _import(node: ast.Import | ast.ImportFrom) -> Refusal | None:
    """Accept the lecture's import lines (no-ops binding names already given); refuse others."""
    if isinstance(node, ast.Import):
        if all((a.name, a.asname) in d.IMPORTS for a in node.names):
            return None
        return _at(node, f"import {', '.join(a.name for a in node.names)}", IMPORT)
    forms = {(node.module, a.name, a.asname) for a in node.names}
    if node.level == 0 and forms <= d.FROM_IMPORTS:
        return None
    names = ", ".join(a.name for a in node.names)
    return _at(node, f"from {'.' * node.level}{node.module or ''} import {names}", IMPORT)


def _no_grad(node: ast.With) -> bool:
    """Return whether every item of a `with` is `torch.no_grad()`, bound to no name."""
    return all(
        item.optional_vars is None
        and isinstance(item.context_expr, ast.Call)
        and not item.context_expr.args
        and not item.context_expr.keywords
        and _dotted(item.context_expr.func) == d.NO_GRAD
        for item in node.items
    )


def _dotted(node: ast.AST) -> str:
    """Return `a.b.c` for an attribute chain on a plain name, else ''."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else ""


def _shown(node: ast.Attribute) -> str:
    """Return how a refusal names an attribute: `torch.ops` on a given module, else `.grad_fn`."""
    base = node.value
    if isinstance(base, ast.Name) and base.id in d.GIVEN:
        return f"{base.id}.{node.attr}"
    return f".{node.attr}"


def _nearest(name: str, allowed) -> tuple[str, ...]:
    """Return up to three allowed names closest to a refused one."""
    return tuple(difflib.get_close_matches(name, sorted(allowed), n=3, cutoff=0.6))


def widen(names: tuple[str, ...]) -> Language:
    """Return the exercise language with the attribute names a course adds (its course.toml's
    `[language] attributes`); raise ValueError saying why a name cannot be added: only the
    declared extra names can (declared.EXTRA), never a private name, autograd or an import."""
    for name in names:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"{name!r} is not an attribute name")
        if name.startswith("_"):
            raise ValueError(f"`{name}` is private: a course can never add a private name")
        if name in d.AUTOGRAD_WORDS or name in d.DYNAMIC_WORDS:
            raise ValueError(f"`{name}` reaches autograd or other names: it can never be added")
        if name not in d.EXTRA | d.ATTRIBUTES:
            near = ", ".join(f"`{n}`" for n in _nearest(name, d.EXTRA)) or "none close"
            raise ValueError(
                f"`{name}` is not an operation a course may add (nearest: {near}; "
                "every one is listed in docs/exercise-language.md)"
            )
    return LANGUAGE.widened(tuple(names))
