"""Read a notebook with nbformat and find the lecture's four exercises in it, by content.

Only nbformat and the standard library load here (no torch), so the CLI refuses a bad notebook
at once. Cells are text: nothing is executed.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from dataclasses import dataclass

from grader.feedback import voice as feedback

MAX_NOTEBOOK_BYTES = 32 << 20
WRITTEN, UNFILLED, MISSING = "written", "unfilled", "missing"
TITLES = {
    1: "Exercise 1 (the whole pass)",
    2: "Exercise 2 (`dlogits`)",
    3: "Exercise 3 (`dhprebn`)",
    4: "Exercise 4 (the training loop's backward pass)",
}
TARGETS = {1: "dlogprobs", 2: "dlogits", 3: "dhprebn"}  # the name each cell assigns
MARKER = re.compile(r"#\s*manual backprop")
SECTION_END = re.compile(r"(grads\s*=|lr\s*=|for\s+p\s*,\s*grad\b)")
# Tensors the lecture's chunked forward pass defines: most of them mean the lecture's notebook.
LECTURE_NAMES = (
    "logprobs",
    "counts_sum_inv",
    "norm_logits",
    "logit_maxes",
    "bnvar_inv",
    "bndiff2",
    "bnmeani",
    "hprebn",
    "embcat",
)


class NotebookError(ValueError):
    """A notebook that cannot be graded; the message says why, in the feedback voice."""


@dataclass(frozen=True)
class Part:
    """One exercise as found: its cell (1-based, among all cells), the code to grade, a state."""

    number: int
    cell: int | None = None
    code: str = ""
    state: str = MISSING  # WRITTEN, UNFILLED (the lecture's blank) or MISSING (no cell)

    @property
    def title(self) -> str:
        """Return the exercise's name as messages say it."""
        return TITLES[self.number]


@dataclass(frozen=True)
class Found:
    """A readable lecture notebook: its name and the four exercises, in order."""

    name: str
    parts: tuple[Part, ...]


def read(raw: bytes, name: str) -> Found:
    """Return the notebook's four exercises, found by content; NotebookError when unusable."""
    cells = code_cells(parse(raw, name))
    parts = find(cells)
    if all(p.state == MISSING for p in parts):
        lecture = _lecture_like(cells)
        message = feedback.notebook_no_exercises if lecture else feedback.notebook_not_lecture
        raise NotebookError(message(name))
    if not any(p.state == WRITTEN for p in parts):
        blank = tuple(p.title for p in parts if p.state == UNFILLED)
        raise NotebookError(feedback.notebook_nothing_written(name, blank))
    return Found(name, parts)


def parse(raw: bytes, name: str):
    """Return the notebook as nbformat 4, validated against nbformat's own schema."""
    import nbformat

    if len(raw) > MAX_NOTEBOOK_BYTES:
        raise NotebookError(feedback.notebook_too_large(name, MAX_NOTEBOOK_BYTES >> 20))
    try:
        text = raw.decode("utf-8-sig")
        data = json.loads(text)
    except UnicodeDecodeError:
        raise NotebookError(feedback.notebook_not_json(name, "it is not UTF-8 text")) from None
    except json.JSONDecodeError as err:
        detail = f"{err.msg} at line {err.lineno}, column {err.colno}"
        raise NotebookError(feedback.notebook_not_json(name, detail)) from None
    if not isinstance(data, dict) or not isinstance(data.get("nbformat"), int):
        raise NotebookError(feedback.notebook_malformed(name, "it has no `nbformat` version"))
    try:
        with warnings.catch_warnings():  # a cell without an id (nbformat < 4.5) is fine here
            warnings.simplefilter("ignore")
            notebook = nbformat.convert(nbformat.reader.reads(text), 4)
            nbformat.validate(notebook)
    except nbformat.ValidationError as err:
        raise NotebookError(feedback.notebook_malformed(name, _short(err.message))) from None
    except nbformat.reader.NBFormatError as err:
        raise NotebookError(feedback.notebook_malformed(name, _short(str(err)))) from None
    except Exception:  # nbformat's converters raise whatever the damaged JSON makes them
        detail = "its cells cannot be read"
        raise NotebookError(feedback.notebook_malformed(name, detail)) from None
    return notebook


def _short(text: str, limit: int = 160) -> str:
    """Return the first line of a message, cut to a readable length."""
    line = (text.strip().splitlines() or ["unknown problem"])[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def code_cells(notebook) -> list[tuple[int, str]]:
    """Return (position among all cells, 1-based; source) of each code cell, magics commented."""
    return [
        (i, _without_magics(cell.source))
        for i, cell in enumerate(notebook.cells, 1)
        if cell.cell_type == "code"
    ]


def _without_magics(source: str) -> str:
    """Comment out IPython's `%magic` and `!shell` lines, which are not Python."""
    lines = source.splitlines()
    return "\n".join("# " + ln if ln.lstrip()[:1] in ("%", "!") else ln for ln in lines) + "\n"


def find(cells: list[tuple[int, str]]) -> tuple[Part, ...]:
    """Return the four exercises: Exercise 4's loop first, then 1, then 2 and 3 among the rest."""
    fourth = _best(4, [(i, _section(s)) for i, s in cells if MARKER.search(s)])
    rest = [(i, s) for i, s in cells if i != fourth.cell]
    first = _best(1, [(i, s) for i, s in rest if _mentions(s, TARGETS[1])])
    rest = [(i, s) for i, s in rest if i != first.cell]
    second = _best(2, [(i, s) for i, s in rest if _mentions(s, TARGETS[2])])
    third = _best(3, [(i, s) for i, s in rest if _mentions(s, TARGETS[3])])
    return first, second, third, fourth


def _mentions(source: str, target: str) -> bool:
    """Return whether a cell assigns `target` or holds the lecture's cmp line for it."""
    forward = target[1:]
    return target in _assigned(source) or bool(re.search(rf"cmp\(\s*['\"]{forward}['\"]", source))


def _best(number: int, candidates: list[tuple[int, str]]) -> Part:
    """Return the last written candidate cell, else the last blank one, else a missing part."""
    parts = [Part(number, i, code, _state(code)) for i, code in candidates]
    written = [p for p in parts if p.state == WRITTEN]
    return (written or parts or [Part(number)])[-1]


def _state(code: str) -> str:
    """Return WRITTEN when the code assigns a value to some name, else UNFILLED."""
    return WRITTEN if any(not blank for blank in _assigned(code).values()) else UNFILLED


def _assigned(source: str) -> dict[str, bool]:
    """Return each name the code assigns -> whether every assignment is a blank (None, ...).

    Code that does not parse counts as written (the grader then reports the syntax error).
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {name: False for name in re.findall(r"^\s*(d\w+)[^=\n#]*=", source, re.M)}
    found: dict[str, bool] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            blank = isinstance(node, ast.Assign) and _blank(node.value)
            for name in _names(targets):
                found[name] = found.get(name, True) and blank
    return found


def _blank(value: ast.expr) -> bool:
    """Return whether a value is the lecture's placeholder: None or `...`, alone or a tuple."""
    if isinstance(value, ast.Tuple):
        return all(_blank(v) for v in value.elts)
    return isinstance(value, ast.Constant) and (value.value is None or value.value is Ellipsis)


def _names(targets: list[ast.expr]) -> list[str]:
    """Return the names assigned by targets: `a`, `a, b`, `a[i]`."""
    names = []
    for target in targets:
        while isinstance(target, ast.Subscript | ast.Attribute):
            target = target.value
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, ast.Tuple | ast.List):
            names += _names(list(target.elts))
    return names


def _section(source: str) -> str:
    """Return Exercise 4's backward section: the lines after the marker, up to `grads = [...]`.

    The section sits indented in the loop; it is returned at its own indentation, with comments
    that sit further left dropped, so that it runs as the gradient check runs it. Blank lines
    stand for the lines above it, so that a line number in feedback is the cell's.
    """
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if MARKER.search(line)) + 1
    code = [ln for ln in lines[start:] if ln.strip() and not ln.lstrip().startswith("#")]
    indent = _indent(code[0]) if code else 0
    kept = []
    for line in lines[start:]:
        stripped = line.strip()
        code_line = stripped and not stripped.startswith("#")
        if code_line and (_indent(line) < indent or SECTION_END.match(stripped)):
            break
        kept.append(line[indent:] if _indent(line) >= indent else "")
    return "\n" * start + "\n".join(kept).rstrip("\n") + "\n"


def _indent(line: str) -> int:
    """Return the number of leading spaces (a tab counts as one)."""
    return len(line) - len(line.lstrip())


def _lecture_like(cells: list[tuple[int, str]]) -> bool:
    """Return whether the code defines most of the lecture's chunked forward pass."""
    text = "\n".join(s for _, s in cells)
    hits = sum(bool(re.search(rf"\b{name}\s*=[^=]", text)) for name in LECTURE_NAMES)
    return hits >= len(LECTURE_NAMES) // 2 + 1
