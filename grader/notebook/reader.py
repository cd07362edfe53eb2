"""Read a notebook in a child process, so that the process that asked never holds its cost.

The app's process sends the file's bytes to `python -m grader.notebook` (data/bounded.py: a
memory cap, a time limit) and gets back the four exercises' code, or why it was refused.
"""

from __future__ import annotations

from dataclasses import asdict

from data import bounded
from grader.feedback import voice as feedback
from grader.notebook import cells
from grader.notebook.cells import Found, Part
from grader.notebook.limits import MAX_NOTEBOOK_BYTES, NotebookError


def read(raw: bytes, name: str) -> Found:
    """Return the notebook's four exercises, read in a child; NotebookError when unusable."""
    if len(raw) > MAX_NOTEBOOK_BYTES:
        raise NotebookError(feedback.notebook_too_large(name, MAX_NOTEBOOK_BYTES >> 20))
    outcome = bounded.run("grader.notebook", raw, [name])
    if outcome.over is not None:
        limit = bounded.LIMITS[outcome.over]
        raise NotebookError(feedback.notebook_over_reader_limit(name, limit))
    if "refused" in outcome.result:
        raise NotebookError(outcome.result["refused"])
    return Found(name, tuple(Part(**part) for part in outcome.result["parts"]))


def read_in_child(raw: bytes, args: list) -> dict:
    """Read a notebook (in the child): its parts' fields, or the refusal's message."""
    (name,) = args
    try:
        found = cells.read(raw, name)
    except NotebookError as err:
        return {"refused": str(err)}
    return {"parts": [asdict(part) for part in found.parts]}
