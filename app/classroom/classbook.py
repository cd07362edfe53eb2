"""The instructor dashboard's figures, from the store's class view: plain values, no Streamlit.

The grid (a row per learner, a column per item of the course), each item's totals, who is stuck,
and the gradebook's facts, which grade-batch's own writer turns into files
(grader/gradebook/recorded.py) so that one set of tools reads both: schema
`backprop-ninja/gradebook/3`, docs/gradebook.md; its answers and their regrades come from
answers.py.

    >>> view = ClassView(store)
    >>> grid = class_grid(view.class_learners(), view.class_cells(), columns)
    >>> grid.rows[0].cells["dlogprobs"].status
    'solved'
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.classroom.answers import Answer, gradebook_facts
from app.classroom.classview import Cell, Learner, Misconception
from app.storage import ATTEMPTED, SOLVED
from grader import gradebook as grader_gradebook

if TYPE_CHECKING:
    from grader import Catalog

NOT_STARTED = "not_started"
STUCK_ATTEMPTS = 5  # attempts at one exercise, none solving it, that make a learner stuck...
STUCK_WINDOW = 3600.0  # ...when made in the last hour (seconds)
TOP_MISCONCEPTIONS = 3  # shown per exercise


@dataclass(frozen=True)
class Row:
    """One learner's row of the grid: their cells by item, and totals."""

    learner: Learner
    cells: dict[str, Cell]

    def status(self, item: str) -> str:
        """Return SOLVED, ATTEMPTED or NOT_STARTED for one item."""
        cell = self.cells.get(item)
        if cell is None:
            return NOT_STARTED
        return SOLVED if cell.solved else ATTEMPTED

    @property
    def solved(self) -> int:
        return sum(c.solved for c in self.cells.values())

    @property
    def attempts(self) -> int:
        return sum(c.attempts for c in self.cells.values())


@dataclass(frozen=True)
class Grid:
    """The class: the items of the course (columns) and a row per learner."""

    columns: tuple[str, ...]
    rows: list[Row]

    def groups(self) -> list[str]:
        """Return every group a learner of the grid is in, sorted."""
        return sorted({g for r in self.rows for g in r.learner.groups})

    def in_group(self, group: str | None) -> Grid:
        """Return the grid of one group's learners (None: everyone)."""
        if group is None:
            return self
        return Grid(self.columns, [r for r in self.rows if group in r.learner.groups])


@dataclass(frozen=True)
class ItemSummary:
    """One item's totals over the class."""

    item: str
    solved: int
    attempted: int  # attempted, not solved
    median_attempts: float | None  # to the first solve, over those who solved it
    median_seconds: float | None  # time spent up to the first solve
    misconceptions: list[Misconception] = field(default_factory=list)


def course_items(catalog: Catalog) -> tuple[str, ...]:
    """Return the course's items, the grid's columns: grade-batch's (exercises, whole passes)."""
    return grader_gradebook.columns_of(catalog)


def class_grid(learners: list[Learner], cells: list[Cell], columns: tuple[str, ...]) -> Grid:
    """Return the grid: every learner, their cells at the course's items."""
    by_learner: dict[int, dict[str, Cell]] = {}
    for cell in cells:
        if cell.exercise_id in columns:
            by_learner.setdefault(cell.profile_id, {})[cell.exercise_id] = cell
    return Grid(columns, [Row(p, by_learner.get(p.profile_id, {})) for p in learners])


def item_summaries(grid: Grid, misconceptions: list[Misconception]) -> list[ItemSummary]:
    """Return each item's totals over the grid's learners, in course order."""
    found = []
    for item in grid.columns:
        cells = [r.cells[item] for r in grid.rows if item in r.cells]
        solved = [c for c in cells if c.solved]
        seen = [m for m in misconceptions if m.exercise_id == item][:TOP_MISCONCEPTIONS]
        found.append(
            ItemSummary(
                item,
                len(solved),
                len(cells) - len(solved),
                _median([c.to_solve for c in solved]),
                _median([c.time_to_solve for c in solved]),
                seen,
            )
        )
    return found


def stuck_since(now: float | None = None) -> float:
    """Return the start of the window in which many attempts make a learner stuck."""
    return (time.time() if now is None else now) - STUCK_WINDOW


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


# The gradebook ---------------------------------------------------------------------------------


def gradebook_names(learners: list[Learner]) -> dict[int, str]:
    """Return each learner's key in a gradebook, a stable id, never a name they type: the
    e-mail address their provider verified, else their identity (`<issuer> <subject>`), else
    (a local profile) its name; made unique with the profile's number where two would share
    one. The name shown beside it is `gradebook_files`' business."""
    first = {
        p.profile_id: p.email or (p.owner if " " in p.owner else "") or p.name for p in learners
    }
    counts = Counter(first.values())
    return {i: n if counts[n] == 1 else f"{n} (#{i})" for i, n in first.items()}


def gradebook_files(
    answers: list[Answer],
    names: dict[int, str],
    catalog: Catalog,
    references: dict | None = None,
    learners: list[Learner] = (),
    lms=None,
) -> dict[str, bytes]:
    """Return the gradebook's three files ('csv', 'wide.csv', 'json') as grade-batch writes
    them, scored by the one scoring function under the course's policy (answers.py), every
    learner named listed (those with no attempt too), each keyed by `names` and shown by their
    name (learners'), look-alike names flagged; references: {item: why its reference answer
    fails}, named in the book; lms: an LMS's roster export, its import file too."""
    shown = {names[p.profile_id]: p.name for p in learners if p.profile_id in names}
    return grader_gradebook.gradebook_files(
        gradebook_facts(answers, names), list(names.values()), catalog, references, shown, lms
    )
