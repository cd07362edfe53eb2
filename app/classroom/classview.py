"""The class as the instructor sees it: read-only queries over every learner's progress.

A part of the store (app/storage's `Part`: each call in one transaction, every row keyed by the
store's course), kept here beside the dashboard's figures (classbook.py) that it feeds. Every
query is portable SQL (SQLite and PostgreSQL alike) with named `:name` parameters. One table is
read and written only here, `people`: who each signed-in identity is (name, e-mail, groups from
the provider's claims, role, last seen), so the grid can name learners and filter by group
(made by the migration 0003_people).

    >>> view = ClassView(store)
    >>> view.note_person("https://id.uni.edu 42", "Ada", "ada@uni.edu", ("A",), "learner")
    >>> [c.attempts for c in view.class_cells()]
    [3, 1]
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.classroom.people import INSTRUCTOR
from app.storage import REGRADE, Db, Part, auditlog

if TYPE_CHECKING:
    from sqlalchemy import Row


@dataclass(frozen=True)
class Learner:
    """A profile of the class, named by its person where one signed in (classroom mode)."""

    profile_id: int
    name: str
    email: str = ""  # as the provider verified it ("" if it did not say so)
    groups: tuple[str, ...] = ()
    last_seen: float = 0.0
    owner: str = ""  # the identity the profile belongs to


@dataclass(frozen=True)
class Cell:
    """One learner's attempts at one exercise: how many, whether and when solved.

    `to_solve` and `time_to_solve` count the attempts up to the first solving one (and the
    time spent on them); both are 0 while unsolved."""

    profile_id: int
    exercise_id: str
    attempts: int
    solved: bool
    to_solve: int
    time_to_solve: float
    last_at: float


@dataclass(frozen=True)
class Misconception:
    """A misconception id recorded at an exercise: how often, by how many, and one answer."""

    exercise_id: str
    misconception: str
    attempts: int
    learners: int
    example: str


@dataclass(frozen=True)
class Stuck:
    """A learner with many recent attempts at an exercise and no solve."""

    profile_id: int
    exercise_id: str
    attempts: int
    last_at: float


@dataclass(frozen=True)
class Recorded:
    """One recorded attempt, with its facts: a line of a learner's history or a gradebook."""

    id: int
    profile_id: int
    exercise_id: str
    code: str
    solved: bool
    status: str
    summary: str
    misconception: str
    failed_check: str
    version: str
    origin: str
    created_at: float


@dataclass(frozen=True)
class Event:
    """A hint shown or a solution revealed."""

    exercise_id: str
    kind: str
    created_at: float


LEARNERS = """
SELECT p.id, p.name, pe.name, pe.email, pe.groups, pe.last_seen, p.owner
FROM profiles p LEFT JOIN people pe ON pe.owner = p.owner
WHERE pe.role IS NULL OR pe.role <> :instructor
ORDER BY p.id
"""
# Per learner and exercise: the attempts, whether solved, the last; then, for the solved ones,
# the attempts up to the first solve and the time spent on them (two scans, no join of all rows).
# A verdict a later regrade of the same answer replaced does not count (issue 35).
REPLACED = """EXISTS (SELECT 1 FROM attempts r WHERE r.profile_id = a.profile_id
    AND r.exercise_id = a.exercise_id AND r.course_id = a.course_id AND r.origin = :regrade
    AND r.id > a.id AND r.created_at = a.created_at AND r.code = a.code)"""
CELLS = f"""
SELECT profile_id, exercise_id, SUM(CASE WHEN origin = :regrade THEN 0 ELSE 1 END),
    MAX(CASE WHEN solved = 1 AND NOT {REPLACED} THEN 1 ELSE 0 END), MAX(created_at)
FROM attempts a WHERE course_id = :course
GROUP BY profile_id, exercise_id
"""
TO_SOLVE = """
WITH firsts AS (
    SELECT profile_id, exercise_id, MIN(id) AS first FROM attempts
    WHERE course_id = :course AND solved = 1
    GROUP BY profile_id, exercise_id)
SELECT f.profile_id, f.exercise_id, SUM(CASE WHEN a.origin = :regrade THEN 0 ELSE 1 END),
    SUM(a.time_spent)
FROM firsts f JOIN attempts a ON a.profile_id = f.profile_id AND a.course_id = :course
    AND a.exercise_id = f.exercise_id AND a.id <= f.first
GROUP BY f.profile_id, f.exercise_id
"""
MISCONCEPTIONS = """
SELECT exercise_id, misconception, COUNT(*), COUNT(DISTINCT profile_id), MAX(id)
FROM attempts WHERE course_id = :course AND misconception <> ''
GROUP BY exercise_id, misconception
ORDER BY COUNT(*) DESC, exercise_id, misconception
"""
STUCK = """
SELECT a.profile_id, a.exercise_id, COUNT(*), MAX(a.created_at)
FROM attempts a
WHERE a.course_id = :course AND a.created_at >= :since AND a.origin <> :regrade
    AND NOT EXISTS (SELECT 1 FROM attempts s WHERE s.profile_id = a.profile_id
        AND s.course_id = :course AND s.exercise_id = a.exercise_id AND s.solved = 1)
GROUP BY a.profile_id, a.exercise_id
HAVING COUNT(*) >= :many
ORDER BY COUNT(*) DESC, MAX(a.created_at) DESC
"""
RECORDED = (
    "SELECT id, profile_id, exercise_id, code, solved, status, summary, misconception,"
    " failed_check, version, origin, created_at FROM attempts"
)
# The attempt that stands for each learner's exercise in a gradebook: the first solving one,
# else the latest.
STANDING = f"""
{RECORDED} WHERE id IN (
    SELECT COALESCE(MIN(CASE WHEN solved = 1 THEN id END), MAX(id))
    FROM attempts WHERE course_id = :course GROUP BY profile_id, exercise_id)
ORDER BY profile_id, exercise_id
"""


class ClassView(Part):
    """The store's read-only calls over the whole class of its course (and `note_person`)."""

    def note_person(
        self, owner: str, name: str, email: str, groups: tuple[str, ...], role: str
    ) -> None:
        """Remember who a signed-in identity is, and when they were last seen; a role that
        changed, or an instructor seen for the first time, goes to the audit log."""
        with self._db() as db:
            before = db.execute("SELECT role FROM people WHERE owner = :o", {"o": owner}).scalar()
            db.execute(
                "INSERT INTO people (owner, name, email, groups, role, last_seen)"
                " VALUES (:owner, :name, :email, :groups, :role, :seen)"
                " ON CONFLICT (owner) DO UPDATE SET name = excluded.name,"
                " email = excluded.email, groups = excluded.groups, role = excluded.role,"
                " last_seen = excluded.last_seen",
                {
                    "owner": owner,
                    "name": name,
                    "email": email,
                    "groups": json.dumps(list(groups)),
                    "role": role,
                    "seen": time.time(),
                },
            )
            if before != role and (before is not None or role == INSTRUCTOR):
                change = {owner: {"from": before, "to": role}}
                auditlog.write(db, self.course, auditlog.CONFIGURATION, auditlog.ROLE, change)

    def class_learners(self) -> list[Learner]:
        """Return every learner's profile (instructors left out), oldest first."""
        with self._db() as db:
            rows = db.execute(LEARNERS, {"instructor": INSTRUCTOR}).fetchall()
        return [
            Learner(r[0], r[2] or r[1], r[3] or "", _groups(r[4]), r[5] or 0.0, r[6] or "")
            for r in rows
        ]

    def class_cells(self) -> list[Cell]:
        """Return a cell per learner and exercise attempted in this course."""
        args = {"course": self.course, "regrade": REGRADE}
        with self._db() as db:
            rows = db.execute(CELLS, args).fetchall()
            solving = {(r[0], r[1]): r[2:] for r in db.execute(TO_SOLVE, args).fetchall()}
        cells = []
        for profile_id, exercise_id, attempts, solved, last_at in rows:
            to_solve, spent = solving.get((profile_id, exercise_id), (0, 0.0))
            cell = Cell(profile_id, exercise_id, attempts, bool(solved), to_solve, spent, last_at)
            cells.append(cell)
        return cells

    def class_misconceptions(self) -> list[Misconception]:
        """Return the misconceptions recorded at each exercise, most frequent first, each with
        the latest answer that showed it."""
        with self._db() as db:
            rows = db.execute(MISCONCEPTIONS, {"course": self.course}).fetchall()
            codes = _codes(db, [r[4] for r in rows])
        return [Misconception(r[0], r[1], r[2], r[3], codes.get(r[4], "")) for r in rows]

    def class_stuck(self, since: float, many: int) -> list[Stuck]:
        """Return who made at least `many` attempts at an exercise since `since` (a time) and
        never solved it, most attempts first."""
        args = {"course": self.course, "since": since, "many": many, "regrade": REGRADE}
        with self._db() as db:
            rows = db.execute(STUCK, args).fetchall()
        return [Stuck(*r) for r in rows]

    def class_history(self, profile_id: int) -> tuple[list[Recorded], list[Event]]:
        """Return one learner's attempts and hints/reveals in this course, oldest first."""
        args = {"course": self.course, "profile": profile_id}
        with self._db() as db:
            rows = db.execute(
                f"{RECORDED} WHERE course_id = :course AND profile_id = :profile ORDER BY id", args
            ).fetchall()
            events = db.execute(
                "SELECT exercise_id, kind, created_at FROM events"
                " WHERE course_id = :course AND profile_id = :profile ORDER BY id",
                args,
            ).fetchall()
        return [_recorded(r) for r in rows], [Event(*e) for e in events]

    def class_standing(self) -> list[Recorded]:
        """Return, per learner and exercise, the attempt a gradebook grades: the first that
        solved it, else the latest."""
        with self._db() as db:
            rows = db.execute(STANDING, {"course": self.course}).fetchall()
        return [_recorded(r) for r in rows]


def _recorded(row: Row) -> Recorded:
    return Recorded(*row[:4], bool(row[4]), *row[5:])


def _codes(db: Db, ids: list[int]) -> dict[int, str]:
    """Return the code of each attempt id."""
    if not ids:
        return {}
    names = {f"id{i}": value for i, value in enumerate(ids)}
    marks = ", ".join(f":{n}" for n in names)
    rows = db.execute(f"SELECT id, code FROM attempts WHERE id IN ({marks})", names).fetchall()
    return dict(rows)


def _groups(text: str | None) -> tuple[str, ...]:
    """Return the groups stored as a JSON list (none for a profile nobody signed in to)."""
    try:
        found = json.loads(text or "[]")
    except ValueError:
        return ()
    return tuple(str(g) for g in found) if isinstance(found, list) else ()
