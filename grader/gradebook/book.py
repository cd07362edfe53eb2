"""The gradebook, written: its rows, what it is of (the course's items, the learners, the
roster, points), and the three files grade-batch and the app's dashboard write alike: a long CSV
(a row per item), a wide CSV (a row per learner) and JSON (docs/gradebook.md)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from grader.gradebook import learners as keys
from grader.gradebook import safetext
from grader.result import GRADER_FAILED, SOLVED

SCHEMA = "backprop-ninja/gradebook/2"


BOM = "\ufeff"  # so a spreadsheet (Excel on Windows) reads the CSVs as UTF-8


WHOLE_PASS = "whole_pass"


NO_AUTOGRAD, AUTOGRAD = "rules", "autograd"  # the check that refuses autograd, and the flag


@dataclass(frozen=True)
class Graded:
    """One row of the gradebook."""

    learner: str
    item: str  # the exercise id, or whole_pass:<slug>
    kind: str
    solved: bool
    status: str  # solved, not_solved, refused (the file could not be graded), grader_failed
    summary: str
    file: str
    version: str = ""  # the exercise's content version (a hash of its files), "" for others
    integrity: str = ""  # "autograd" when the answer reached autograd: for a review, not a grade
    late: bool = False  # the file was modified after the item's deadline ([deadlines])


@dataclass(frozen=True)
class Book:
    """What the gradebook is of: the course's items (the wide CSV's columns, in course order),
    every learner to list (found in the folder, empty folders included, and the roster's), and
    the roster itself (None: none given)."""

    columns: tuple[str, ...] = ()
    learners: tuple[str, ...] = ()
    roster: tuple[str, ...] | None = None
    info: dict = field(default_factory=dict)
    points: tuple[float, ...] = ()  # each column's points, in order (none given: 1 each)
    names: dict[str, str] = field(default_factory=dict)  # a learner's name shown, by key

    def weights(self) -> tuple[float, ...]:
        """Return each column's points: [points] of course.toml, else 1."""
        return self.points or (1,) * len(self.columns)

    def scored(self, items: list[Graded]) -> float:
        """Return the points of the items of the course a learner solved."""
        pairs = zip(self.columns, self.weights(), strict=True)
        return sum(w for c, w in pairs if _best(items, c) == SOLVED)


def columns_of(catalog) -> tuple[str, ...]:
    """Return the course's items, the wide CSV's columns: every exercise id in course order,
    then each scenario's whole pass (whole_pass:<slug>)."""
    passes = tuple(f"{WHOLE_PASS}:{s.slug}" for s in catalog.scenarios if s.whole_pass)
    return tuple(e.id for e in catalog.exercises) + passes


def course_info(catalog) -> dict:
    """Return the course's id and version: a hash of every exercise's content version, so a
    book says which course, as written then, it was graded against."""
    digest = hashlib.sha256()
    for e in catalog.exercises:
        digest.update(f"{e.id}:{e.version}\n".encode())
    return {"id": catalog.course.id, "version": digest.hexdigest()[:12]}


COLUMNS = ("learner", "item", "kind", "solved", "status", "summary", "file", "version")

COLUMNS += ("integrity", "late")


# A wide cell's status when a learner has two answers to one item: the better one counts.
RANK = ("", "refused", GRADER_FAILED, "not_solved", "solved")


def write_gradebook(
    rows: list[Graded], out: Path, info: dict, book: Book = Book()
) -> tuple[Path, Path, Path]:
    """Write <out>.csv (one row per item), <out>.wide.csv (one row per learner, a column per
    item of the course) and <out>.json (by learner), each whole or not at all (a temporary
    file renamed into place); return the three paths.

    Every text is shown inert (safetext.shown: no control character, no undecodable byte);
    every CSV cell is quoted, and a formula character at its start or after any separator a
    spreadsheet may split on gets a quote before it (safetext.cell). Learners whose names
    look the same are flagged (`possibly_same_as`: learners.py). Both CSVs start with a BOM.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    paths = out.with_suffix(".csv"), out.with_suffix(".wide.csv"), out.with_suffix(".json")
    info = {"graded_at": _now(), **info, "out_of": len(book.columns)}
    info["points_out_of"] = _number(sum(book.weights()))
    ordered = sorted((_inert(r) for r in rows), key=lambda r: (r.learner, r.item))
    learners: dict[str, list[Graded]] = {
        safetext.shown(n): [] for n in sorted({*book.learners, *(book.roster or ())})
    }
    for r in ordered:
        learners.setdefault(r.learner, []).append(r)
    learners = dict(sorted(learners.items()))
    book = _named(book, learners)
    _write_whole(paths[0], _long_csv(ordered))
    _write_whole(paths[1], _wide_csv(learners, book, info))
    document = {"schema": SCHEMA, **info, "learners": _learners_json(learners, book)}
    _write_whole(paths[2], json.dumps(document, indent=2, ensure_ascii=True))
    return paths


def _named(book: Book, learners: dict[str, list[Graded]]) -> Book:
    """Return the book with every learner's name shown inert (its key where none is given)."""
    return replace(book, names={n: safetext.shown(book.names.get(n, n)) for n in learners})


LOOKALIKES = "possibly_same_as"  # the learners whose names look the same (learners.py)


def _number(value: float) -> float | int:
    """Return a whole number of points as an int (3, not 3.0)."""
    return int(value) if float(value).is_integer() else round(value, 6)


def _now() -> str:
    """Return the time of grading, ISO 8601 in UTC to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _long_csv(ordered: list[Graded]) -> str:
    """Return the long CSV: one row per graded item."""
    table = io.StringIO()
    writer = csv.writer(table, quoting=csv.QUOTE_ALL)
    writer.writerow(COLUMNS)
    for r in ordered:
        writer.writerow([safetext.cell(str(getattr(r, c))) for c in COLUMNS])
    return BOM + table.getvalue()


def _wide_csv(learners: dict[str, list[Graded]], book: Book, info: dict) -> str:
    """Return the wide CSV: one row per learner, a column per item of the course holding its
    status ("" when nothing was submitted), then solved, out_of and where the book is from."""
    table = io.StringIO()
    writer = csv.writer(table, quoting=csv.QUOTE_ALL)
    tail = ("solved", "out_of", "points", "points_out_of", "integrity", "late", "graded_at")
    tail += ("course",)
    tail += ("course_version", "name", LOOKALIKES)
    writer.writerow(["learner", *book.columns, *tail])
    course, alike = info.get("course", {}), keys.lookalikes(book.names)
    for name, items in learners.items():
        cells = [_best(items, c) for c in book.columns]
        solved = sum(c == "solved" for c in cells)
        flags = "; ".join(f"{r.item}: {r.integrity}" for r in items if r.integrity)
        points = (_number(book.scored(items)), info["points_out_of"])
        late = "; ".join(r.item for r in items if r.late)
        own = (solved, len(book.columns), *points, flags, late, info["graded_at"])
        own += (course.get("id", ""),)
        row = [name, *cells, *own, course.get("version", ""), book.names[name]]
        row.append("; ".join(alike.get(name, ())))
        writer.writerow([safetext.cell(str(c)) for c in row])
    return BOM + table.getvalue()


def _best(items: list[Graded], column: str) -> str:
    """Return the best status a learner has for one item of the course ("" for none)."""
    return max((r.status for r in items if r.item == column), key=RANK.index, default="")


def _learners_json(learners: dict[str, list[Graded]], book: Book) -> list[dict]:
    """Return the JSON's learners: every learner, those who submitted nothing with no items."""
    roster = {safetext.shown(n) for n in book.roster} if book.roster is not None else None
    alike = keys.lookalikes(book.names)
    return [
        {
            "learner": name,
            "solved": sum(r.solved for r in items),
            "graded": sum(r.status != "refused" for r in items),
            "points": _number(book.scored(items)),
            **({} if roster is None else {"on_roster": name in roster}),
            "name": book.names[name],
            LOOKALIKES: list(alike.get(name, ())),
            "items": [asdict(r) for r in items],
        }
        for name, items in learners.items()
    ]


def _inert(row: Graded) -> Graded:
    """Return a row with every text shown inert."""
    texts = ("learner", "item", "summary", "file")
    return replace(row, **{k: safetext.shown(getattr(row, k)) for k in texts})


def _write_whole(path: Path, text: str) -> None:
    """Write text to path atomically: a reader sees the old file or the new one, never half
    of one, and a link at path is replaced, never written through."""
    fd, draft = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(draft, path)
    except BaseException:
        Path(draft).unlink(missing_ok=True)
        raise
