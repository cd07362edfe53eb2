"""A learner's work in one course: drafts, graded attempts, hints and reveals, and the totals
the pages show (a part of the store: app/storage/store.py).

    >>> store.work.save_draft(me, "dlogprobs", "dlogprobs = ...")
    >>> store.work.record_attempt(me, attempt)
    >>> store.work.statuses(me)                  # {exercise id: SOLVED or ATTEMPTED}

Drafts, attempts and events are keyed by the store's course, so two courses served from one
database never share progress, even where they share exercise ids.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.storage.engine import Db, Part
from app.storage.migrations import EDITOR, GRADED

if TYPE_CHECKING:
    from sqlalchemy import Row

    from app.storage.profiles import Profile
    from grader import PassResult, Result
    from grader.training import GradCheck

SOLVED, ATTEMPTED = "solved", "attempted"
NOT_SOLVED = "not_solved"  # an attempt's status, as the grader says it (Facts.status)


@dataclass(frozen=True)
class Facts:
    """What a graded attempt showed, from the grader's fields: whether the code ran, the first
    failed check, the misconception id (grader/misconceptions.py) and the status; `source` is
    "backfilled" for a row older than these columns (read once from its text, by migrations)."""

    ran: bool = False
    failed_check: str = ""
    misconception: str = ""
    status: str = ""
    source: str = GRADED
    tally: tuple[int, int, int, int] = (0, 0, 0, 0)  # parts right, parts, checks passed, checks


def facts_of(result: Result | PassResult | GradCheck) -> Facts:
    """Return the facts of a grader result (Result, PassResult or GradCheck), from its fields;
    its tally (grader.result.Tally: for partial credit) where it has one."""
    tally = getattr(result, "tally", None)
    counts = (tally.right, tally.parts, tally.passed, tally.checks) if tally else (0, 0, 0, 0)
    return Facts(result.ran, result.failed_check, result.misconception, result.status, tally=counts)


@dataclass(frozen=True)
class Attempt:
    """One graded submission, as recorded."""

    exercise_id: str
    code: str
    solved: bool
    summary: str
    elapsed: float
    time_spent: float
    dataset: str
    created_at: float = 0.0
    facts: Facts = field(default_factory=Facts)
    version: str = ""  # the exercise's content version when answered ("" if not known)
    origin: str = EDITOR  # or NOTEBOOK (a part of an uploaded notebook), PASS_STEP, REGRADE


@dataclass(frozen=True)
class ExerciseProgress:
    """One exercise's totals for a profile."""

    exercise_id: str
    attempts: int
    solved: bool
    time_spent: float
    hints: int
    revealed: bool
    last_at: float


class Work(Part):
    """The store's calls for a learner's work in its course."""

    def draft(self, profile: Profile, exercise_id: str) -> str | None:
        """Return the code last typed for an exercise, if any."""
        with self._db() as db:
            row = db.execute(
                "SELECT code FROM drafts WHERE profile_id = :p AND course_id = :c"
                " AND exercise_id = :e",
                {"p": profile.id, "c": self.course, "e": exercise_id},
            ).fetchone()
        return row[0] if row else None

    def save_draft(self, profile: Profile, exercise_id: str, code: str) -> None:
        """Keep the code typed for an exercise."""
        with self._db() as db:
            upsert_draft(db, profile, self.course, exercise_id, code)

    def record_attempt(self, profile: Profile, attempt: Attempt) -> None:
        """Record one graded submission."""
        with self._db() as db:
            insert_attempt(db, profile, self.course, attempt, None)

    def attempts(self, profile: Profile, exercise_id: str | None = None) -> list[Attempt]:
        """Return the profile's attempts (at one exercise, if given), oldest first."""
        query = f"SELECT {ATTEMPT_COLUMNS} FROM attempts WHERE profile_id = :p AND course_id = :c"
        args = {"p": profile.id, "c": self.course, "e": exercise_id}
        if exercise_id is not None:
            query += " AND exercise_id = :e"
        with self._db() as db:
            rows = db.execute(query + " ORDER BY id", args).fetchall()
        return [attempt_of(row) for row in rows]

    def record_event(self, profile: Profile, exercise_id: str, kind: str) -> None:
        """Record a hint shown or a solution revealed."""
        with self._db() as db:
            db.execute(
                "INSERT INTO events (profile_id, course_id, exercise_id, kind, created_at)"
                " VALUES (:p, :c, :e, :k, :t)",
                {"p": profile.id, "c": self.course, "e": exercise_id, "k": kind, "t": time.time()},
            )

    def event_counts(self, profile: Profile, exercise_id: str) -> dict[str, int]:
        """Return how many of each kind of event (hint, reveal) the profile has had for an
        exercise, in one query: an exercise page asks for both."""
        with self._db() as db:
            rows = db.execute(
                "SELECT kind, COUNT(*) FROM events WHERE profile_id = :p AND course_id = :c"
                " AND exercise_id = :e GROUP BY kind",
                {"p": profile.id, "c": self.course, "e": exercise_id},
            ).fetchall()
        return {kind: count for kind, count in rows}

    def progress(self, profile: Profile) -> list[ExerciseProgress]:
        """Return per-exercise totals for every exercise the profile has touched."""
        with self._db() as db:
            rows = db.execute(PROGRESS_QUERY, {"p": profile.id, "c": self.course}).fetchall()
        return [
            ExerciseProgress(r[0], r[1], bool(r[2]), r[3], r[4], bool(r[5]), r[6]) for r in rows
        ]

    def statuses(self, profile: Profile) -> dict[str, str]:
        """Return "solved" or "attempted" for every exercise the profile has submitted."""
        return {
            p.exercise_id: SOLVED if p.solved else ATTEMPTED
            for p in self.progress(profile)
            if p.attempts
        }

    def reset(self, profile: Profile) -> None:
        """Delete the profile's drafts, attempts and events in this course, and its runs; keep
        it, its settings and its progress in other courses."""
        with self._db() as db:
            for table in ("drafts", "attempts", "submissions", "events"):
                db.execute(
                    f"DELETE FROM {table} WHERE profile_id = :p AND course_id = :c",
                    {"p": profile.id, "c": self.course},
                )
            db.execute("DELETE FROM training_runs WHERE profile_id = :p", {"p": profile.id})


ATTEMPT_COLUMNS = (
    "exercise_id, code, solved, summary, elapsed, time_spent, dataset, created_at, ran,"
    " failed_check, misconception, status, facts, version, origin"
)
ATTEMPT_COLUMNS += ", parts_right, parts, checks_passed, checks"


def attempt_of(r: Row) -> Attempt:
    """Rebuild an attempt from its row (ATTEMPT_COLUMNS, in order)."""
    facts = Facts(bool(r[8]), *r[9:13], tally=tuple(r[15:19]))
    return Attempt(r[0], r[1], bool(r[2]), *r[3:8], facts, r[13], r[14])


# Every sub-query reads one profile's rows in one course (":p", ":c") for one exercise.
PROGRESS_QUERY = """
WITH touched AS (
    SELECT exercise_id FROM attempts WHERE profile_id = :p AND course_id = :c
    UNION SELECT exercise_id FROM events WHERE profile_id = :p AND course_id = :c
    UNION SELECT exercise_id FROM drafts WHERE profile_id = :p AND course_id = :c)
SELECT t.exercise_id,
    (SELECT COUNT(*) FROM attempts a
        WHERE a.profile_id = :p AND a.course_id = :c AND a.exercise_id = t.exercise_id),
    (SELECT COALESCE(MAX(solved), 0) FROM attempts a
        WHERE a.profile_id = :p AND a.course_id = :c AND a.exercise_id = t.exercise_id),
    (SELECT COALESCE(SUM(time_spent), 0) FROM attempts a
        WHERE a.profile_id = :p AND a.course_id = :c AND a.exercise_id = t.exercise_id),
    (SELECT COUNT(*) FROM events e
        WHERE e.profile_id = :p AND e.course_id = :c AND e.exercise_id = t.exercise_id
        AND kind = 'hint'),
    (SELECT COUNT(*) > 0 FROM events e
        WHERE e.profile_id = :p AND e.course_id = :c AND e.exercise_id = t.exercise_id
        AND kind = 'reveal'),
    (SELECT MAX(at) FROM (
        SELECT MAX(created_at) AS at FROM attempts a
            WHERE a.profile_id = :p AND a.course_id = :c AND a.exercise_id = t.exercise_id
        UNION ALL SELECT MAX(updated_at) FROM drafts d
            WHERE d.profile_id = :p AND d.course_id = :c AND d.exercise_id = t.exercise_id
        ) AS latest)
FROM touched t
"""


def upsert_draft(db: Db, profile: Profile, course: str, exercise_id: str, code: str) -> None:
    """Keep the code typed for an exercise of a course (inside the caller's transaction)."""
    db.execute(
        "INSERT INTO drafts (profile_id, course_id, exercise_id, code, updated_at)"
        " VALUES (:p, :c, :e, :code, :at) ON CONFLICT (profile_id, course_id, exercise_id)"
        " DO UPDATE SET code = excluded.code, updated_at = excluded.updated_at",
        {"p": profile.id, "c": course, "e": exercise_id, "code": code, "at": time.time()},
    )


def insert_attempt(db: Db, profile: Profile, course: str, a: Attempt, ticket: str | None) -> None:
    """Insert one attempt at a course's exercise (inside the caller's transaction); a ticket
    already recorded is kept, the second insert doing nothing (the ticket's unique index)."""
    facts = a.facts
    values = {
        "profile_id": profile.id,
        "exercise_id": a.exercise_id,
        "code": a.code,
        "solved": int(a.solved),
        "summary": a.summary,
        "elapsed": a.elapsed,
        "time_spent": a.time_spent,
        "dataset": a.dataset,
        "created_at": a.created_at or time.time(),
        "ticket": ticket,
        "ran": int(facts.ran),
        "failed_check": facts.failed_check,
        "misconception": facts.misconception,
        "status": facts.status,
        "facts": facts.source,
        "course_id": course,
        "version": a.version,
        "origin": a.origin,
    } | dict(zip(("parts_right", "parts", "checks_passed", "checks"), facts.tally, strict=True))
    names, marks = ", ".join(values), ", ".join(f":{name}" for name in values)
    db.execute(f"INSERT INTO attempts ({names}) VALUES ({marks}) ON CONFLICT DO NOTHING", values)
