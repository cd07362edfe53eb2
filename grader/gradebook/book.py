"""The gradebook, written: its rows, what it is of (the course's items, the learners, the
roster, the course and its policy), and the three files grade-batch and the app's dashboard
write alike: a long CSV (a row per item), a wide CSV (a row per learner) and JSON
(docs/gradebook.md). Points come from the one scoring function (policy.py)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import tempfile
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from grader.course import Course
from grader.gradebook import learners as keys
from grader.gradebook import safetext, scored
from grader.gradebook.lms import LmsRoster, lms_csv
from grader.gradebook.policy import Mark, Submission, Verdict, score, total

SCHEMA = "backprop-ninja/gradebook/3"


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
    late: bool = False  # it came after the learner's due time for the item (set by the writer)
    submitted_at: float | None = None  # when it was submitted (seconds since the epoch)
    time_from: str = ""  # where that time is from: TIME_SOURCES ("" when none)
    answer: str = ""  # a digest of the answer's code: the same answer graded again has the same
    right: int = 0  # its gradients right (grader.result.Tally), for partial credit...
    parts: int = 0  # ...of those it asks
    passed: int = 0  # its checks passed...
    checks: int = 0  # ...of those in its list
    history: tuple[Verdict, ...] = ()  # this answer's earlier verdicts, oldest first (regrades)
    reference_fails: bool = False  # its exercise's reference answer fails its own grading

    def verdict(self) -> Verdict:
        """Return this row's verdict, as the scoring function reads it."""
        return Verdict(self.status, self.version, self.right, self.parts, self.passed, self.checks)


TIME_SOURCES = ("app", "manifest", "file")  # an attempt's recorded time, the instructor's, mtime


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
    course: Course | None = None  # the course and its policy (None: [points] as given, no more)
    references: dict = field(default_factory=dict)  # {item: why its reference answer fails}
    counted_only: bool = False  # list only the answer that counts per item (the app's many)
    names: dict[str, str] = field(default_factory=dict)  # a learner's name shown, by key
    lms: LmsRoster | None = None  # an LMS's roster export: also write its import file (lms.py)

    def weights(self) -> tuple[float, ...]:
        """Return each column's points: [points] of course.toml, else 1."""
        if self.course is not None:
            return tuple(self.course.points_of(c) for c in self.columns)
        return self.points or (1,) * len(self.columns)

    def policy(self) -> Course:
        """Return the course whose policy scores the book (its points, deadlines, [grading] and
        extensions); without one, a course of the given points and the default policy."""
        return self.course or Course(points=tuple(zip(self.columns, self.weights(), strict=True)))

    def marks(self, rows: list[Graded]) -> list[Mark]:
        """Return the scored cells of the rows that answer an item of the course."""
        return score(self.policy(), submissions(rows, self.columns))


def submissions(rows: list[Graded], columns: tuple[str, ...]) -> list[Submission]:
    """Return the scoring function's submissions: each row at an item of the course, with its
    verdicts (its history, then its own) and its time."""
    return [
        Submission(r.learner, r.item, (*r.history, r.verdict()), r.submitted_at, r.file)
        for r in rows
        if r.item in columns
    ]


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

COLUMNS += ("submitted_at", "time_from", "right", "parts", "was")


def write_gradebook(
    rows: list[Graded], out: Path, info: dict, book: Book = Book()
) -> tuple[Path, ...]:
    """Write <out>.csv (one row per item), <out>.wide.csv (one row per learner, a column per
    item of the course) and <out>.json (by learner), each whole or not at all (a temporary
    file renamed into place), and with an LMS roster <out>.<lms>.csv (its import layout, a
    row per roster student: lms.py); return the paths, the JSON last.

    Points, lateness and regrade marks come from the one scoring function (policy.py), with
    the course's policy stated in the book. Every text is shown inert (safetext.shown: no
    control character, no undecodable byte); every CSV cell is quoted, and a formula character
    at its start or after any separator a spreadsheet may split on gets a quote before it
    (safetext.cell). Learners whose names look the same are flagged (`possibly_same_as`:
    learners.py). Both CSVs start with a UTF-8 BOM.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    paths = out.with_suffix(".csv"), out.with_suffix(".wide.csv"), out.with_suffix(".json")
    ordered = sorted((_inert(r) for r in _facts(rows, book)), key=lambda r: (r.learner, r.item))
    info = {"graded_at": _now(), **info, "out_of": len(book.columns)}
    info["points_out_of"] = scored.number(sum(book.weights()))
    info["policy"] = scored.policy_json(book.policy())
    info["notes"] = scored.notes(ordered, book.references)
    marks = book.marks(ordered)
    if book.counted_only:
        ordered = _counted(ordered, marks)
    learners = _by_learner(ordered, book)
    book = _named(book, learners)
    _write_whole(paths[0], _long_csv(ordered))
    _write_whole(paths[1], _wide_csv(learners, book, info, marks))
    document = {"schema": SCHEMA, **info, "learners": _learners_json(learners, book, marks)}
    _write_whole(paths[2], json.dumps(document, indent=2, ensure_ascii=True))
    if book.lms is None:
        return paths
    lms = out.with_suffix(f".{book.lms.layout.name}.csv")
    _write_whole(lms, lms_csv(book.lms, marks, learners, book.columns, book.weights()))
    return *paths[:2], lms, paths[2]


def _named(book: Book, learners: dict[str, list[Graded]]) -> Book:
    """Return the book with every learner's name shown inert (its key where none is given)."""
    return replace(book, names={n: safetext.shown(book.names.get(n, n)) for n in learners})


LOOKALIKES = "possibly_same_as"  # the learners whose names look the same (learners.py)


def _counted(ordered: list[Graded], marks: list[Mark]) -> list[Graded]:
    """Keep, of each learner's answers to an item of the course, the one that counts; answers
    to nothing of the course stay."""
    counts = {(m.learner, m.item): m.source for m in marks}
    return [r for r in ordered if counts.get((r.learner, r.item), r.file) == r.file]


def _by_learner(ordered: list[Graded], book: Book) -> dict[str, list[Graded]]:
    """Return every learner's rows, by name: those found, the roster's, each with no rows
    when they sent nothing."""
    names = {*book.learners, *(book.roster or ())}
    learners: dict[str, list[Graded]] = {safetext.shown(n): [] for n in names}
    for r in ordered:
        learners.setdefault(r.learner, []).append(r)
    return dict(sorted(learners.items()))


def _facts(rows: list[Graded], book: Book) -> list[Graded]:
    """Return the rows with what the book knows of them: late (the policy's due times) and
    whether their exercise's reference answer fails."""
    rows = scored.with_lateness(rows, book.policy(), book.columns)
    return [replace(r, reference_fails=r.item in book.references) for r in rows]


def _now() -> str:
    """Return the time of grading, ISO 8601 in UTC to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _long_csv(ordered: list[Graded]) -> str:
    """Return the long CSV: one row per graded item."""
    table = io.StringIO()
    writer = csv.writer(table, quoting=csv.QUOTE_ALL)
    writer.writerow(COLUMNS)
    for r in ordered:
        writer.writerow([safetext.cell(scored.cell(r, c)) for c in COLUMNS])
    return BOM + table.getvalue()


def _wide_csv(learners: dict[str, list[Graded]], book: Book, info: dict, marks) -> str:
    """Return the wide CSV: one row per learner, a column per item of the course holding its
    status ("" when nothing was submitted), then solved, points, flags and where the book is
    from."""
    table = io.StringIO()
    writer = csv.writer(table, quoting=csv.QUOTE_ALL)
    tail = ("solved", "out_of", "points", "points_out_of", "integrity", "late", "graded_at")
    tail += ("course",)
    tail += ("course_version",)
    tail += ("regraded", "notes")
    tail += ("name", LOOKALIKES)
    writer.writerow(["learner", *book.columns, *tail])
    course, alike = info.get("course", {}), keys.lookalikes(book.names)
    for name, items in learners.items():
        own_marks = [m for m in marks if m.learner == name]
        cells = [_status(own_marks, c) for c in book.columns]
        solved = sum(c == "solved" for c in cells)
        flags = "; ".join(f"{r.item}: {r.integrity}" for r in items if r.integrity)
        points = (scored.number(total(own_marks, name)), info["points_out_of"])
        late = "; ".join(r.item for r in items if r.late)
        own = (solved, len(book.columns), *points, flags, late, info["graded_at"])
        own += (course.get("id", ""),)
        own += (course.get("version", ""), scored.regraded(own_marks))
        row = [name, *cells, *own, scored.learner_notes(items), book.names[name]]
        row.append("; ".join(alike.get(name, ())))
        writer.writerow([safetext.cell(str(c)) for c in row])
    return BOM + table.getvalue()


def _status(marks: list[Mark], column: str) -> str:
    """Return the status of the answer that counts for one item of the course ("" for none)."""
    return next((m.status for m in marks if m.item == column), "")


def _learners_json(learners: dict[str, list[Graded]], book: Book, marks) -> list[dict]:
    """Return the JSON's learners: every learner, those who submitted nothing with no items."""
    roster = {safetext.shown(n) for n in book.roster} if book.roster is not None else None
    alike = keys.lookalikes(book.names)
    return [
        {
            "learner": name,
            "solved": sum(r.solved for r in items),
            "graded": sum(r.status != "refused" for r in items),
            "points": scored.number(total(marks, name)),
            **({} if roster is None else {"on_roster": name in roster}),
            "name": book.names[name],
            LOOKALIKES: list(alike.get(name, ())),
            "items": [scored.item_json(r) for r in items],
            "marks": [scored.mark_json(m) for m in marks if m.learner == name],
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
