"""Read a notebook with nbformat and find the lecture's four exercises in it, by content.

Only nbformat and the standard library load here (no torch), so the CLI refuses a bad notebook
at once. Cells are text: nothing is executed. The caps of `limits` come first, then JSON once,
then nbformat on what is read (outputs and metadata emptied), then each candidate cell is
parsed as Python once. `reader.read` runs this in a child process with a memory cap.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from dataclasses import dataclass

from grader.feedback import voice as feedback
from grader.notebook.limits import NotebookError, check_cells, check_raw

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
# A name a line assigns, read without Python's parser (possessive: linear on any line).
ASSIGNED_LINE = re.compile(r"^[ \t]*+(d\w++)[^=\n#]*+=", re.M)
NEVER_READ = (("outputs", list), ("metadata", dict), ("attachments", dict))


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


@dataclass(frozen=True)
class Cell:
    """A code cell: its position (1-based, among all cells), its text, and the names it
    assigns (-> whether only blanks), parsed once and only if it may hold an exercise."""

    index: int
    source: str
    assigned: dict[str, bool]


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
    """Return the notebook as nbformat 4, validated against nbformat's own schema.

    The caps come before JSON and before nbformat; outputs, metadata and the text of
    non-code cells are emptied before nbformat sees them (they are never read).
    """
    import nbformat

    check_raw(raw, name)
    data = _json(raw, name)
    check_cells(data, name)
    try:
        with warnings.catch_warnings():  # a cell without an id (nbformat < 4.5) is fine here
            warnings.simplefilter("ignore")
            notebook = nbformat.convert(_versioned(nbformat, _slim(data)), 4)
            nbformat.validate(notebook)
    except nbformat.ValidationError as err:
        raise NotebookError(feedback.notebook_malformed(name, _short(err.message))) from None
    except nbformat.NBFormatError as err:
        raise NotebookError(feedback.notebook_malformed(name, _short(str(err)))) from None
    except MemoryError:  # the reader's cap, not a fault of the notebook's form
        raise
    except Exception:  # nbformat's converters raise whatever the damaged JSON makes them
        detail = "its cells cannot be read"
        raise NotebookError(feedback.notebook_malformed(name, detail)) from None
    return notebook


def _json(raw: bytes, name: str) -> dict:
    """Return the file's JSON object (it must name an `nbformat` version); parsed once."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise NotebookError(feedback.notebook_not_json(name, "it is not UTF-8 text")) from None
    except json.JSONDecodeError as err:
        detail = f"{err.msg} at line {err.lineno}, column {err.colno}"
        raise NotebookError(feedback.notebook_not_json(name, detail)) from None
    except (ValueError, RecursionError) as err:  # an integer of over 4,300 digits, say
        raise NotebookError(feedback.notebook_not_json(name, _short(str(err)))) from None
    if not isinstance(data, dict) or not isinstance(data.get("nbformat"), int):
        raise NotebookError(feedback.notebook_malformed(name, "it has no `nbformat` version"))
    return data


def _versioned(nbformat, data: dict):
    """Return the notebook of its own nbformat version, as nbformat.reads would."""
    major, minor = nbformat.reader.get_version(data)
    if major not in nbformat.versions:
        raise nbformat.NBFormatError(f"nbformat version {major} is not one nbformat reads")
    return nbformat.versions[major].to_notebook_json(data, minor=minor)


def _slim(data: dict) -> dict:
    """Return the notebook with its outputs, metadata and non-code text emptied."""
    slim = {**data, **_emptied(data)}
    if isinstance(data.get("cells"), list):
        slim["cells"] = [_slim_cell(c) for c in data["cells"]]
    if isinstance(data.get("worksheets"), list):
        slim["worksheets"] = [_slim_sheet(w) for w in data["worksheets"]]
    return slim


def _slim_sheet(sheet):
    """Return a worksheet (nbformat 2 and 3) with its cells slimmed."""
    if not isinstance(sheet, dict) or not isinstance(sheet.get("cells"), list):
        return sheet
    return {**sheet, **_emptied(sheet), "cells": [_slim_cell(c) for c in sheet["cells"]]}


def _slim_cell(cell):
    """Return a cell with outputs and metadata emptied, and no text unless it is code."""
    if not isinstance(cell, dict):
        return cell
    slim = {**cell, **_emptied(cell)}
    if cell.get("cell_type") != "code" and isinstance(cell.get("source"), str | list):
        slim["source"] = ""
    return slim


def _emptied(part: dict) -> dict:
    """Return the never-read keys of a notebook part, each emptied if it has the right type."""
    return {key: kind() for key, kind in NEVER_READ if isinstance(part.get(key), kind)}


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
    parsed = [Cell(i, s, _assigned(s) if _may_hold_exercise(s) else {}) for i, s in cells]
    fourth = _best(4, [_loop_section(c) for c in parsed if MARKER.search(c.source)])
    rest = [c for c in parsed if c.index != fourth.cell]
    first = _best(1, [c for c in rest if _mentions(c, TARGETS[1])])
    rest = [c for c in rest if c.index != first.cell]
    second = _best(2, [c for c in rest if _mentions(c, TARGETS[2])])
    third = _best(3, [c for c in rest if _mentions(c, TARGETS[3])])
    return first, second, third, fourth


def _may_hold_exercise(source: str) -> bool:
    """Return whether a cell names an exercise's gradient or has a cmp line (else never parsed)."""
    return "cmp(" in source or any(target in source for target in TARGETS.values())


def _loop_section(cell: Cell) -> Cell:
    """Return Exercise 4's section of a loop cell, as a cell of its own (parsed once)."""
    section = _section(cell.source)
    return Cell(cell.index, section, _assigned(section))


def _mentions(cell: Cell, target: str) -> bool:
    """Return whether a cell assigns `target` or holds the lecture's cmp line for it."""
    forward = target[1:]
    cmp_line = re.search(rf"cmp\(\s*['\"]{forward}['\"]", cell.source)
    return target in cell.assigned or bool(cmp_line)


def _best(number: int, candidates: list[Cell]) -> Part:
    """Return the last written candidate cell, else the last blank one, else a missing part."""
    parts = [Part(number, c.index, c.source, _state(c.assigned)) for c in candidates]
    written = [p for p in parts if p.state == WRITTEN]
    return (written or parts or [Part(number)])[-1]


def _state(assigned: dict[str, bool]) -> str:
    """Return WRITTEN when the code assigns a value to some name, else UNFILLED."""
    return WRITTEN if any(not blank for blank in assigned.values()) else UNFILLED


def _assigned(source: str) -> dict[str, bool]:
    """Return each name the code assigns -> whether every assignment is a blank (None, ...).

    Code that does not parse counts as written (the grader then reports the syntax error).
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {name: False for name in ASSIGNED_LINE.findall(source)}
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
