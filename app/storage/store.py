"""Progress storage: learner profiles, drafts, attempts, hints and reveals, behind one URL.

`open_store(url)` returns a Store on SQLite (`sqlite:///<path>`, the local mode) or PostgreSQL
(`postgresql://...`, the classroom), through SQLAlchemy Core: the same SQL text, with named
parameters, on both. Each call runs in one transaction of its own (`self._db()`), so
Streamlit's session threads never share one. Finished training runs are one more table, kept
by runstore.TrainingRuns; the schema is Alembic's (schema.py).

    >>> store = open_store("sqlite:////tmp/ninja.sqlite3")
    >>> me = store.add_profile("ada")
    >>> store.save_draft(me, "dlogprobs", "dlogprobs = ...")

A store is opened for one course (`open_store(url, course="attention")`): its drafts, attempts,
events and statuses are that course's, so two courses served from one database never share
progress, even where they share exercise ids.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlalchemy import Engine

from app import private
from app.storage.classview import ClassView
from app.storage.engine import Db, make_engine, transaction
from app.storage.migrations import DEFAULT_COURSE, EDITOR, GRADED, NOTEBOOK, REGRADE
from app.storage.privacy import Privacy
from app.storage.profiles import Profile, Profiles, StorageError
from app.storage.queue import QueuedRuns
from app.storage.runstore import TrainingRuns
from app.storage.schema import check, sqlite_path, upgrade
from app.storage.submissions import Submissions, insert_attempt, upsert_draft
from app.storage.words import WordLists

__all__ = [
    "DEFAULT_COURSE",
    "EDITOR",
    "NOTEBOOK",
    "REGRADE",
    "Attempt",
    "Facts",
    "Profile",
    "StorageError",
    "Store",
    "facts_of",
    "open_store",
]

# 2: profiles belong to a browser identity; 3: attempts carry a ticket; 4: and their facts;
# 5: progress is keyed by course, and an attempt records the exercise's version; 6: and where
# it was submitted from (the editor or a notebook); from 7 on, Alembic's revisions (meta keeps
# the number for a reader without Alembic); 10: uploaded word lists
SCHEMA_VERSION = 10
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


def facts_of(result) -> Facts:
    """Return the facts of a grader result (Result, PassResult or GradCheck), from its fields."""
    return Facts(result.ran, result.failed_check, result.misconception, result.status)


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
    origin: str = EDITOR  # or NOTEBOOK: a part of an uploaded notebook, graded


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


def open_store(url: str, course: str = DEFAULT_COURSE) -> Store:
    """Return one course's store for a database URL (`sqlite:///<path>` or `postgresql://...`).

    A SQLite file is created or upgraded here; a PostgreSQL database must already be at the
    code's schema (`python -m app.storage upgrade`), else SchemaBehind says so.
    """
    engine = make_engine(url)
    path = sqlite_path(engine)
    if path is None:
        check(engine)
        return Store(engine, course)
    private.folder(path.parent)
    private.database(path)
    with transaction(engine) as db:
        db.execute("PRAGMA journal_mode=WAL")
    upgrade(engine)
    return Store(engine, course)


class Store(Profiles, TrainingRuns, QueuedRuns, Submissions, Privacy, ClassView, WordLists):
    """Progress of every profile in one course, in one database.

    Profiles, settings and training runs belong to the learner, whatever the course.
    """

    def __init__(self, engine: Engine, course: str = DEFAULT_COURSE):
        if not course:
            raise StorageError("A store needs a course id: got an empty one.")
        self.engine, self.course = engine, course
        self.path = sqlite_path(engine)  # None for a server database

    @contextmanager
    def _db(self) -> Iterator[Db]:
        """Yield a connection inside one transaction; commit on success. Mixins run SQL text
        with named parameters: `db.execute("... WHERE profile_id = :p", {"p": 1})`."""
        with transaction(self.engine) as db:
            yield db

    # Settings and drafts ------------------------------------------------------------------

    def setting(self, profile: Profile, key: str, default: str = "") -> str:
        """Return one of the profile's settings."""
        with self._db() as db:
            row = db.execute(
                "SELECT value FROM settings WHERE profile_id = :p AND key = :k",
                {"p": profile.id, "k": key},
            ).fetchone()
        return row[0] if row else default

    def set_setting(self, profile: Profile, key: str, value: str) -> None:
        """Store one of the profile's settings."""
        with self._db() as db:
            db.execute(
                "INSERT INTO settings (profile_id, key, value) VALUES (:p, :k, :v)"
                " ON CONFLICT (profile_id, key) DO UPDATE SET value = excluded.value",
                {"p": profile.id, "k": key, "v": value},
            )

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

    # Attempts and events ------------------------------------------------------------------

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

    def count_events(self, profile: Profile, exercise_id: str, kind: str) -> int:
        """Return how many hints (or reveals) the profile has had for an exercise."""
        with self._db() as db:
            row = db.execute(
                "SELECT COUNT(*) FROM events WHERE profile_id = :p AND course_id = :c"
                " AND exercise_id = :e AND kind = :k",
                {"p": profile.id, "c": self.course, "e": exercise_id, "k": kind},
            )
            return row.fetchone()[0]

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


def attempt_of(r) -> Attempt:
    """Rebuild an attempt from its row (ATTEMPT_COLUMNS, in order)."""
    return Attempt(r[0], r[1], bool(r[2]), *r[3:8], Facts(bool(r[8]), *r[9:13]), r[13], r[14])


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
