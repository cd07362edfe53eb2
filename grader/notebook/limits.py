"""The caps a notebook meets before anything in it is parsed: bytes, JSON nesting, cells, code.

The bytes and the nesting are checked on the raw file, before JSON; the number of cells and the
code in each are checked on the JSON, before nbformat and before any cell is parsed as Python.
The lecture's notebook is about 40 cells, 6 levels deep, its longest cell 3,000 characters.
"""

from __future__ import annotations

import re

from grader.feedback import voice as feedback

MAX_NOTEBOOK_BYTES = 8 << 20
MAX_DEPTH = 64
MAX_CELLS = 500
MAX_CELL_CHARS = 100_000  # as much as an answer may hold (grader.rules.MAX_CODE_BYTES)
MAX_CODE_CHARS = 1_000_000  # over all code cells
ESCAPES = re.compile(rb"\\.", re.S)  # outside a string a backslash is not JSON anyway
STRINGS = re.compile(rb'"[^"]*"')
BRACKETS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))


class NotebookError(ValueError):
    """A notebook that cannot be graded; the message says why, in the feedback voice."""


def check_raw(raw: bytes, name: str) -> None:
    """Refuse a file over the size cap or whose JSON nests deeper than MAX_DEPTH."""
    if len(raw) > MAX_NOTEBOOK_BYTES:
        raise NotebookError(feedback.notebook_too_large(name, MAX_NOTEBOOK_BYTES >> 20))
    levels = depth(raw)
    if levels > MAX_DEPTH:
        raise NotebookError(feedback.notebook_too_deep(name, levels, MAX_DEPTH))


def depth(raw: bytes) -> int:
    """Return how deep the JSON's arrays and objects nest, strings skipped, without parsing."""
    marks = STRINGS.sub(b"", ESCAPES.sub(b"", raw)).translate(BRACKETS, NOT_BRACKETS)
    if marks.count(1) <= MAX_DEPTH:
        return marks.count(1)
    import numpy as np

    return int(np.frombuffer(marks, dtype=np.int8).cumsum(dtype=np.int64).max())


def check_cells(data: dict, name: str) -> None:
    """Refuse a notebook with too many cells, or too much code in a cell or in all of them."""
    cells = all_cells(data)
    if len(cells) > MAX_CELLS:
        raise NotebookError(feedback.notebook_too_many_cells(name, len(cells), MAX_CELLS))
    total = 0
    for number, cell in enumerate(cells, 1):
        chars = code_chars(cell)
        if chars > MAX_CELL_CHARS:
            limit = MAX_CELL_CHARS
            raise NotebookError(feedback.notebook_cell_too_long(name, number, chars, limit))
        total += chars
    if total > MAX_CODE_CHARS:
        raise NotebookError(feedback.notebook_too_much_code(name, total, MAX_CODE_CHARS))


def all_cells(data: dict) -> list:
    """Return the cells of any nbformat version: `cells` (v4), else each worksheet's (v2, v3)."""
    if isinstance(data.get("cells"), list):
        return data["cells"]
    sheets = data.get("worksheets")
    sheets = sheets if isinstance(sheets, list) else []
    lists = [s.get("cells") for s in sheets if isinstance(s, dict)]
    return [c for cells in lists if isinstance(cells, list) for c in cells]


def code_chars(cell) -> int:
    """Return the characters of code a cell holds (`source`, or `input` before nbformat 4)."""
    if not isinstance(cell, dict) or cell.get("cell_type") != "code":
        return 0
    source = cell.get("source", cell.get("input"))
    if isinstance(source, list):
        return sum(len(line) for line in source if isinstance(line, str))
    return len(source) if isinstance(source, str) else 0
