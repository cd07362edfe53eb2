"""A regrade in grade-batch: the earlier book's verdicts carried onto the same answers graded
again (`--previous BOOK.json`), so that the new book marks each cell a fix changed and keeps
each answer's history.

The same answer is the same learner, item and code (the book's `answer` digest); a changed file
is a new answer, with no history.

    >>> earlier = read_previous(Path("book.json"))
    >>> rows = carried(rows, earlier)     # each row's history: the earlier verdicts, oldest first
"""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

from grader.course import BadInput
from grader.gradebook import safetext
from grader.gradebook.book import SCHEMA, Graded
from grader.gradebook.policy import Verdict

MAX_BOOK_BYTES = 64 << 20
VERDICT = ("status", "version", "right", "parts", "passed", "checks")


def read_previous(path: Path) -> dict[tuple[str, str, str], tuple[Verdict, ...]]:
    """Return {(learner, item, answer): its verdicts, oldest first} of an earlier book written by
    this schema; BadInput if it cannot be read or is of another schema."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_BOOK_BYTES + 1)
        document = json.loads(raw)
    except (OSError, ValueError) as err:
        raise BadInput(f"--previous {path} cannot be read as a gradebook: {err}") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        found = document.get("schema") if isinstance(document, dict) else None
        raise BadInput(
            f"--previous {path} is not a {SCHEMA} book (it says {found!r}); an earlier schema "
            "has no digest of each answer, so a regrade cannot be told from a new answer"
        )
    found = {}
    for learner in document.get("learners", []):
        for item in learner.get("items", []):
            if item.get("answer"):
                key = (item["learner"], item["item"], item["answer"])
                found[key] = (*(_verdict(v) for v in item.get("history", [])), _verdict(item))
    return found


def carried(rows: list[Graded], earlier: dict) -> list[Graded]:
    """Return the rows with the earlier verdicts of the same answer as their history (a verdict
    the same as the new one, at the same version, is not repeated)."""
    found = []
    for row in rows:
        key = (safetext.shown(row.learner), safetext.shown(row.item), row.answer)
        before = earlier.get(key, ())
        if before and before[-1] == row.verdict():
            before = before[:-1]
        found.append(replace(row, history=before) if before else row)
    return found


def _verdict(record: dict) -> Verdict:
    """Return a verdict from a book's item (or one of its history)."""
    defaults = {f.name: f.default for f in fields(Verdict)}
    return Verdict(**{k: record.get(k, defaults[k]) for k in VERDICT})
