"""Books an LMS imports as they are: Canvas's, Moodle's and Blackboard's gradebook import layouts,
each row carrying the LMS's own ids read from its roster export (docs/gradebook.md, "A book for
your LMS"). Points are the one scoring function's marks (policy.py); nothing is scored here.

    >>> roster = LmsRoster.read(Path("canvas-export.csv"), "canvas")   # or .parse(raw, ...)
    >>> text = lms_csv(roster, marks, learners, columns, points)   # every roster student a row

A learner (a folder's name for grade-batch, an e-mail address on the dashboard) is a roster
student when it is the student's login id or e-mail address, case and spaces aside. Every
roster student gets a row, those who sent nothing with empty cells (an LMS leaves a blank grade
as it was); a learner on no roster row is named by `unmatched`, never written (an LMS refuses
a row of someone it does not know).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.course import BadInput
from grader.gradebook import safetext
from grader.gradebook.policy import Mark

MAX_LMS_ROSTER_BYTES = 8 << 20
BOM = "\ufeff"  # Canvas, Moodle and Blackboard strip it; Excel needs it to read UTF-8


@dataclass(frozen=True)
class Layout:
    """One LMS's gradebook import layout: the roster columns carried to each row (in order),
    those the roster export must have (one of them), the columns holding a student's login id
    and e-mail, how a new item's column is titled, and how an existing column names its item
    (so an export's own column, with the LMS's id in it, is written back as it was)."""

    name: str
    identity: tuple[str, ...]
    needs_one_of: tuple[str, ...]
    login: tuple[str, ...]
    email: tuple[str, ...]
    title: Callable[[str, float], str]
    names_item: re.Pattern
    points_row: str = ""  # the label of a row of each item's points ("": none)
    quote: int = csv.QUOTE_MINIMAL
    sis: str = ""  # the column of a student's SIS id (the institution's student number)


def _number(value: float) -> str:
    """Return a number as an LMS reads it: 3, not 3.0."""
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


CANVAS = Layout(
    "canvas",
    ("Student", "ID", "SIS User ID", "SIS Login ID", "Section"),
    ("ID",),
    ("SIS Login ID", "SIS User ID"),
    ("Email", "Email Address"),
    lambda item, points: item,
    re.compile(r"^(?P<item>.*) \(\d+\)$"),  # "dh (1234)": the assignment 1234 of Canvas
    points_row="Points Possible",
    sis="SIS User ID",
)
MOODLE = Layout(
    "moodle",
    ("First name", "Last name", "ID number", "Username", "Email address"),
    ("Email address", "Username", "ID number"),
    ("Username", "ID number"),
    ("Email address",),
    lambda item, points: item,
    re.compile(r"^[^:]+: (?P<item>.*) \([^)]*\)$"),  # "Assignment: dh (Real)", its grade export
    sis="ID number",
)
BLACKBOARD = Layout(
    "blackboard",
    ("Last Name", "First Name", "Username", "Student ID"),
    ("Username",),
    ("Username", "Student ID"),
    ("Email",),
    lambda item, points: f"{item} [Total Pts: {_number(points)} Score]",
    re.compile(r"^(?P<item>.*) \[Total Pts: [^\]]*\] \|\d+$"),  # its Grade Center column id
    quote=csv.QUOTE_ALL,  # Blackboard: every value of a comma-delimited file in quotes
    sis="Student ID",
)
LAYOUTS = {layout.name: layout for layout in (CANVAS, MOODLE, BLACKBOARD)}


@dataclass(frozen=True)
class Student:
    """One student of an LMS roster: the roster's own cells, by column."""

    cells: dict

    def name(self, layout: Layout) -> str:
        """Return the first login id or e-mail address the roster gives this student."""
        return next(
            (self.cells[c] for c in (*layout.login, *layout.email) if self.cells.get(c)), ""
        )

    def keys(self, layout: Layout) -> set[str]:
        """Return what names this student: their login ids and e-mail, folded."""
        return {_folded(self.cells.get(c, "")) for c in (*layout.login, *layout.email)} - {""}


@dataclass(frozen=True)
class LmsRoster:
    """An LMS's roster export: its layout, its students in its order, and its item columns
    ({item: the export's header for it}); and the SIS ids the LMS said of learners elsewhere
    (`known`: {learner: SIS id}, its roster service's: `with_sis`)."""

    layout: Layout
    students: tuple[Student, ...]
    headers: dict
    known: dict = field(default_factory=dict)

    FORMATS = ("blackboard", "canvas", "moodle")  # the LMSs, by the name --format takes

    @classmethod
    def read(cls, path: Path, lms: str) -> LmsRoster:
        """Return the roster export at path of an LMS (one of FORMATS); BadInput if unusable."""
        return read_lms_roster(path, lms)

    @classmethod
    def parse(cls, raw: bytes, lms: str, where: str) -> LmsRoster:
        """Return the roster export of an LMS from its bytes (where: its name, for a message)."""
        return parse_lms_roster(raw, LAYOUTS[lms], where)

    def with_sis(self, known: dict[str, str]) -> LmsRoster:
        """Return the roster knowing learners' SIS ids ({learner: SIS id}): a student whose
        SIS cell holds a learner's is theirs, and a student matched to a learner whose SIS
        cell is empty has it written in the LMS's file."""
        return replace(self, known={k: v.strip() for k, v in known.items() if v.strip()})

    def match(self, learners) -> dict[str, int]:
        """Return {learner: their roster row's index} for the learners the roster names (by
        login id or e-mail, else by the SIS id known of them)."""
        keys = [s.keys(self.layout) for s in self.students]
        by_sis = {_folded(s.cells.get(self.layout.sis, "")): i for i, s in enumerate(self.students)}
        by_sis.pop("", None)
        found = {}
        for learner in learners:
            row = next((i for i, k in enumerate(keys) if _folded(learner) in k), None)
            if row is None and learner in self.known:
                row = by_sis.get(_folded(self.known[learner]))
            if row is not None:
                found[learner] = row
        return found

    def identity(self, row: int, learner: str | None) -> list[str]:
        """Return a student's identity cells for the LMS's file: the roster's, its empty SIS
        cell filled with the SIS id known of its learner."""
        cells = dict(self.students[row].cells)
        if learner in self.known and not cells.get(self.layout.sis):
            cells[self.layout.sis] = self.known[learner]
        return [cells.get(c, "") for c in self.layout.identity]

    def names(self, learners) -> tuple[str, ...]:
        """Return the roster as the book's learners: each student's learner when one is
        matched, else their login id (or e-mail address) as the LMS writes it."""
        whose = {
            row: learner for learner, row in sorted(self.match(learners).items(), reverse=True)
        }
        return tuple(whose.get(i) or s.name(self.layout) for i, s in enumerate(self.students))

    def unmatched(self, learners) -> list[str]:
        """Return the learners on no roster row, sorted."""
        return sorted(set(learners) - set(self.match(learners)))


def _folded(text: str) -> str:
    """Return text as it is matched: spaces around and case aside."""
    return text.strip().casefold()


def read_lms_roster(path: Path, layout_name: str) -> LmsRoster:
    """Return the roster an LMS exported (CSV, UTF-8 with or without a BOM, or Blackboard's
    UTF-16 tab-delimited download); BadInput naming what is wrong if it cannot be used."""
    layout = LAYOUTS[layout_name]
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_LMS_ROSTER_BYTES + 1)
    except OSError as err:
        raise BadInput(f"--roster {path} cannot be read: {err.strerror}") from None
    if len(raw) > MAX_LMS_ROSTER_BYTES:
        raise BadInput(f"--roster {path} is larger than {MAX_LMS_ROSTER_BYTES} bytes")
    return parse_lms_roster(raw, layout, str(path))


def parse_lms_roster(raw: bytes, layout: Layout, where: str) -> LmsRoster:
    """Return the roster of an export's bytes (the dashboard's upload, grade-batch's file)."""
    text = _decoded(raw, where)
    rows = list(csv.reader(io.StringIO(text), _dialect(text)))
    header = [h.strip() for h in rows[0]] if rows else []
    if not any(c in header for c in layout.needs_one_of):
        wanted = " or ".join(f"`{c}`" for c in layout.needs_one_of)
        raise BadInput(
            f"--roster {where} is not a {layout.name} roster export: its header has no {wanted} "
            f"column (it has {', '.join(header[:8]) or 'none'})"
        )
    students = tuple(_students(rows[1:], header, layout))
    return LmsRoster(layout, students, _item_headers(header, layout))


def _decoded(raw: bytes, where: str) -> str:
    """Return an export's text: UTF-16 when it starts with that BOM, else UTF-8."""
    try:
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            return raw.decode("utf-16")
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadInput(f"--roster {where} is not UTF-8 (or UTF-16) text") from None


def _dialect(text: str) -> type[csv.Dialect]:
    """Return tab-delimited when the header has tabs and no comma, else comma-delimited."""
    first = text.split("\n", 1)[0]
    return csv.excel_tab if "\t" in first and "," not in first else csv.excel


def _students(rows: list[list[str]], header: list[str], layout: Layout):
    """Yield the roster's students: each row naming someone (a points row and blank rows left
    out)."""
    for row in rows:
        cells = {h: v.strip() for h, v in zip(header, row, strict=False)}
        if layout.points_row and layout.points_row in cells.get(layout.identity[0], ""):
            continue
        if any(cells.get(c) for c in layout.needs_one_of):
            yield Student(cells)


def _item_headers(header: list[str], layout: Layout) -> dict[str, str]:
    """Return {item: header} of the export's columns that name an item with the LMS's id."""
    found = {}
    for h in header:
        named = layout.names_item.match(h)
        if named:
            found.setdefault(named["item"], h)
    return found


def lms_csv(roster: LmsRoster, marks: list[Mark], learners, columns, points) -> str:
    """Return the LMS's import file: the roster's identity columns, then a column per item of
    the course (the export's own header for it when it has one, else its id), a row per roster
    student in the roster's order with each item's points ("" when nothing counts)."""
    layout = roster.layout
    pairs = zip(columns, points, strict=True)
    titles = [roster.headers.get(c) or layout.title(c, p) for c, p in pairs]
    table = io.StringIO()
    writer = csv.writer(table, quoting=layout.quote)
    writer.writerow([*layout.identity, *titles])
    if layout.points_row:
        blanks = [""] * (len(layout.identity) - 1)
        writer.writerow([layout.points_row, *blanks, *(_number(p) for p in points)])
    whose = _learners_of(roster, learners)
    for row in range(len(roster.students)):
        own = {m.item: m.points for m in marks if m.learner == whose.get(row)}
        scores = [_number(own[c]) if c in own else "" for c in columns]
        identity = roster.identity(row, whose.get(row))
        writer.writerow([safetext.cell(v) for v in (*identity, *scores)])
    return BOM + table.getvalue()


def _learners_of(roster: LmsRoster, learners) -> dict[int, str]:
    """Return {roster row: learner}: the first learner (by name) each student is matched to."""
    found: dict[int, str] = {}
    for learner, row in sorted(roster.match(learners).items()):
        found.setdefault(row, learner)
    return found
