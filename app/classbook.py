"""The instructor dashboard's figures, from the store's class view: plain values, no Streamlit.

The grid (a row per learner, a column per item of the course), each item's totals, who is stuck,
and the gradebook, written by grade-batch's own writer (grader/cli/batch.py) so that one set of
tools reads both: schema `backprop-ninja/gradebook/2`, docs/gradebook.md.

    >>> grid = class_grid(store.class_learners(), store.class_cells(), columns)
    >>> grid.rows[0].cells["dlogprobs"].status
    'solved'
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from app.storage import ATTEMPTED, SOLVED
from app.storage.classview import Cell, Learner, Misconception, Recorded
from grader.cli import batch

NOT_STARTED = "not_started"
STUCK_ATTEMPTS = 5  # attempts at one exercise, none solving it, that make a learner stuck...
STUCK_WINDOW = 3600.0  # ...when made in the last hour (seconds)
TOP_MISCONCEPTIONS = 3  # shown per exercise
APP_DATASET = "recorded in the app"  # the gradebook's dataset: each attempt names its own
GRADED_STATUSES = ("solved", "not_solved", "refused", "grader_failed")  # the schema's


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


def course_items(catalog) -> tuple[str, ...]:
    """Return the course's items, the grid's columns: grade-batch's (exercises, whole passes)."""
    return batch.columns_of(catalog)


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
    """Return each learner's name in a gradebook: the e-mail address, else the name; made
    unique with the profile's number where two would share one."""
    first = {p.profile_id: p.email or p.name for p in learners}
    counts = Counter(first.values())
    return {i: n if counts[n] == 1 else f"{n} (#{i})" for i, n in first.items()}


def gradebook_rows(standing: list[Recorded], names: dict[int, str], catalog) -> list[batch.Graded]:
    """Return the gradebook's rows: the standing attempt of each learner's item of the course
    (the first that solved it, else the latest), as grade-batch's rows."""
    columns = set(batch.columns_of(catalog))
    rows = []
    for a in standing:
        if a.exercise_id not in columns or a.profile_id not in names:
            continue
        kind = "whole_pass" if a.exercise_id.startswith(f"{batch.WHOLE_PASS}:") else "exercise"
        status = a.status if a.status in GRADED_STATUSES else ("solved" if a.solved else "")
        status = status or "not_solved"
        deadline = catalog.course.deadline_of(a.exercise_id)
        row = batch.Graded(
            names[a.profile_id],
            a.exercise_id,
            kind,
            status == "solved",
            status,
            a.summary,
            f"{a.origin} attempt #{a.id}",
            a.version if kind == "exercise" else "",
            batch.AUTOGRAD if a.failed_check == batch.NO_AUTOGRAD else "",
            deadline is not None and a.created_at > deadline.timestamp(),
        )
        rows.append(row)
    return rows


def gradebook_files(rows: list[batch.Graded], names: list[str], catalog) -> dict[str, bytes]:
    """Return the gradebook's three files ('csv', 'wide.csv', 'json') as grade-batch writes
    them, for these rows and every learner named (those with no attempt listed too)."""
    columns = batch.columns_of(catalog)
    points = tuple(catalog.course.points_of(c) for c in columns)
    info = {"dataset": APP_DATASET, "seconds": 0, "course": batch.course_info(catalog)}
    book = batch.Book(columns, tuple(names), None, info, points)
    with tempfile.TemporaryDirectory(prefix="ninja-gradebook-") as folder:
        paths = batch.write_gradebook(rows, Path(folder) / "gradebook", info, book)
        return {p.name.removeprefix("gradebook."): p.read_bytes() for p in paths}
