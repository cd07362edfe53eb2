"""docs/exercise-language.md, written from the declared language (never by hand).

`render(usage)` takes which exercises' reference answers use each attribute name (the caller
reads the course: `python -m grader language --doc` does); everything else comes from
declared.py, vocabulary.toml and operations.txt. tests/grader/language checks the page is current.
"""

from __future__ import annotations

from . import declared as d
from .operations import OPERATIONS

HEAD = """\
# The exercise language

<!-- Written by `python -m grader language --doc docs/exercise-language.md` from
grader/language/ (declared.py, vocabulary.toml, operations.txt); do not edit by hand. -->

Learner code (an answer, a whole pass, a notebook's exercise cells, Exercise 4's backward
section, the scratchpad) is a small declared language, not Python with parts taken away. Before
anything runs, the grading process parses the code (under the upload caps) and walks its tree
once: every syntax node, every name and every name after a dot must be declared below. The
first construct that is not is refused, with its line, as a field of the result
(`refused_construct`, `refused_line`) and one sentence, e.g. "`torch.ops` on line 2 is not part of
the exercise language: write the gradient with tensor operations (see the list)." At run time,
the worker's dispatch audit lets through only the forward operations this vocabulary dispatches.
Why, and what it guarantees: [autograd-ban.md](autograd-ban.md).
"""


def render(usage: dict[str, tuple[str, ...]]) -> str:
    """Return the page; `usage` maps an attribute name to the exercises whose answers use it."""
    parts = [HEAD, _size(), _syntax(), _names(), _attributes(usage), _extra(), _runtime()]
    return "\n".join(parts)


def _size() -> str:
    """Return the language's size, in numbers."""
    return (
        "## Its size\n\n"
        f"| syntax nodes | names | attribute names | a course may add | forward operations |\n"
        "| --- | --- | --- | --- | --- |\n"
        f"| {len(d.NODES)} | {len(d.NAMES)} | {len(d.ATTRIBUTES)} | {len(d.EXTRA)} "
        f"| {len(OPERATIONS)} |\n"
    )


def _syntax() -> str:
    """Return the syntax section: the nodes, the accepted forms, what is refused."""
    nodes = ", ".join(f"`{n}`" for n in sorted((n.__name__ for n in d.NODES), key=str.lower))
    lines = dict.fromkeys(_import(m, a) for m, a in sorted(d.IMPORTS, key=str))
    imports = ", ".join(f"`{line}`" for line in lines)
    return (
        "## Syntax\n\n"
        "Assignments (plain, augmented, to subscripts), arithmetic, comparisons, subscripts and "
        "slices, `for` and `while`, `if`, comprehensions, tuples, lists, dicts and sets, "
        "literals, f-strings, functions and lambdas (without decorators), `assert`, `del`.\n"
        f"The nodes of Python's grammar it allows: {nodes}.\n\n"
        f"Accepted as no-ops (they bind names already given): {imports}, "
        "`from torch.nn import functional as F`, and `with torch.no_grad():` (grad mode is off "
        "already); `torch.nn.functional` written out reads as `F`.\n\n"
        "Refused: any other import, `class`, `try`, `raise`, `global`, `nonlocal`, `yield`, "
        "`await`, `async`, `match`, decorators, any other `with`, and assigning an attribute "
        "(`x.data = ...`).\n"
    )


def _import(module: str, alias: str | None) -> str:
    """Return an accepted import line."""
    return f"import {module}" + (f" as {alias}" if alias and alias != module else "")


def _names() -> str:
    """Return the names section."""
    given = ", ".join(f"`{n}`" for n in d.GIVEN)
    builtins = ", ".join(f"`{n}`" for n in d.BUILTINS)
    return (
        "## Names\n\n"
        f"Given: {given}, and the exercise's tensors and sizes; the code's own variables.\n"
        f"Builtins: {builtins}.\n\n"
        "Refused: any name starting with `_` (the bare `_` aside), and every other builtin, even "
        "as a variable (`getattr`, `eval`, `exec`, `format`, `type`, `open`, `globals`, "
        "`vars`, `__import__`, ...). A refused name is answered with the nearest allowed ones.\n"
    )


def _attributes(usage: dict[str, tuple[str, ...]]) -> str:
    """Return the attribute names by family, each with its example and its users."""
    rows = ["## Attribute names\n"]
    rows.append("What code may write after a dot, by family, with an example each (it runs: ")
    rows.append("`python -m grader.language.derive` runs them all) and the shipped exercises ")
    rows.append("whose reference answers use it. Any other name after a dot is refused.\n")
    for family, table in d.FAMILIES.items():
        rows += [
            f"\n### {d.TITLES[family]}\n",
            "| name | example | used by |",
            "| --- | --- | --- |",
        ]
        rows += [_row(name, table[name], usage.get(name, ())) for name in table]
    return "\n".join(rows) + "\n"


def _row(name: str, example: str, users: tuple[str, ...]) -> str:
    """Return one table row: the name, its example, the exercises using it."""
    shown = example.replace("|", "\\|")
    return f"| `{name}` | `{shown}` | {', '.join(users)} |"


def _extra() -> str:
    """Return the names a course may add, and how."""
    table = d.VOCABULARY[d.EXTRA_FAMILY]
    rows = [f"| `{name}` | `{table[name]}` |" for name in table]
    return (
        "## What a course may add\n\n"
        "A course adds names for its own scenario in its `course.toml`, only from this list "
        "(unknown keys are refused; a private name, autograd or an import can never be added):"
        '\n\n```toml\n[language]\nattributes = ["masked_fill"]\n```\n\n'
        "| name | example |\n| --- | --- |\n" + "\n".join(rows) + "\n"
    )


def _runtime() -> str:
    """Return the run-time allow-list section."""
    ops = ", ".join(f"`{op}`" for op in sorted(OPERATIONS))
    return (
        "## At run time\n\n"
        "The worker's dispatch audit lets through only the forward operations the examples above "
        "dispatch (every name, those a course may add, and the syntax's own: operators, "
        "indexing, in-place assignment, printing and formatting a tensor), kept in "
        "`grader/language/operations.txt`; any other operation is refused by its name. "
        f"The {len(OPERATIONS)} operations: {ops}.\n"
    )
