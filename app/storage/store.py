"""Progress storage: learner profiles, drafts, attempts, hints and reveals, behind one URL.

`open_store("sqlite:///var/progress.sqlite3")` returns a Store; a server database can replace
SQLite later by adding a scheme here, without touching the pages. Each call opens its own
connection, so Streamlit's session threads never share one. Finished training runs are one
more table, kept by runstore.TrainingRuns.

    >>> store = open_store("sqlite:////tmp/ninja.sqlite3")
    >>> me = store.add_profile("ada")
    >>> store.save_draft(me, "dlogprobs", "dlogprobs = ...")

A store is opened for one course (`open_store(url, course="attention")`): its drafts, attempts,
events and statuses are that course's, so two courses served from one database never share
progress, even where they share exercise ids.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from app import private
from app.storage.classview import ClassView
from app.storage.migrations import (
    DEFAULT_COURSE,
    EDITOR,
    GRADED,
    NOTEBOOK,
    add_courses,
    add_facts,
    add_origin,
)
from app.storage.profiles import SCHEMA as PROFILES_SCHEMA
from app.storage.profiles import Profile, Profiles, StorageError, migrate
from app.storage.runstore import SCHEMA as RUNS_SCHEMA
from app.storage.runstore import TrainingRuns
from app.storage.submissions import SCHEMA as SUBMISSIONS_SCHEMA
from app.storage.submissions import Submissions, add_tickets, insert_attempt, upsert_draft

__all__ = [
    "DEFAULT_COURSE",
    "EDITOR",
    "NOTEBOOK",
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
# it was submitted from (the editor or a notebook)
SCHEMA_VERSION = 6
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS settings (
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (profile_id, key));
CREATE TABLE IF NOT EXISTS drafts (
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    exercise_id TEXT NOT NULL, code TEXT NOT NULL, updated_at REAL NOT NULL,
    PRIMARY KEY (profile_id, exercise_id));
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    exercise_id TEXT NOT NULL, code TEXT NOT NULL, solved INTEGER NOT NULL,
    summary TEXT NOT NULL, elapsed REAL NOT NULL, time_spent REAL NOT NULL,
    dataset TEXT NOT NULL, created_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS attempts_by_exercise ON attempts (profile_id, exercise_id);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    exercise_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('hint', 'reveal')),
    created_at REAL NOT NULL);
"""
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
    """Return one course's store for a database URL; only `sqlite:///<path>` exists so far."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or url == prefix or url.endswith(":memory:"):
        raise StorageError(f"The database URL must look like `sqlite:///<path>`: got {url!r}.")
    return Store(Path(url[len(prefix) :]), course)


class Store(Profiles, TrainingRuns, Submissions, ClassView):
    """Progress of every local profile in one course, in one SQLite file (created on first use).

    Profiles, settings and training runs belong to the learner, whatever the course.
    """

    def __init__(self, path: Path, course: str = DEFAULT_COURSE):
        if not course:
            raise StorageError("A store needs a course id: got an empty one.")
        self.path, self.course = path, course
        private.folder(path.parent)
        private.database(path)
        migrate(path)
        with self._db() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(PROFILES_SCHEMA + SCHEMA + RUNS_SCHEMA + SUBMISSIONS_SCHEMA)
            add_tickets(db)
            add_facts(db)
            add_courses(db)
            add_origin(db)
            db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """Yield a connection inside one transaction; commit on success."""
        with closing(sqlite3.connect(self.path, timeout=10)) as db:
            db.execute("PRAGMA foreign_keys=ON")
            with db:
                yield db

    # Settings and drafts ------------------------------------------------------------------

    def setting(self, profile: Profile, key: str, default: str = "") -> str:
        """Return one of the profile's settings."""
        with self._db() as db:
            row = db.execute(
                "SELECT value FROM settings WHERE profile_id = ? AND key = ?", (profile.id, key)
            ).fetchone()
        return row[0] if row else default

    def set_setting(self, profile: Profile, key: str, value: str) -> None:
        """Store one of the profile's settings."""
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?, ?)", (profile.id, key, value))

    def draft(self, profile: Profile, exercise_id: str) -> str | None:
        """Return the code last typed for an exercise, if any."""
        with self._db() as db:
            row = db.execute(
                "SELECT code FROM drafts WHERE profile_id = ? AND course_id = ?"
                " AND exercise_id = ?",
                (profile.id, self.course, exercise_id),
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
        query = (
            "SELECT exercise_id, code, solved, summary, elapsed, time_spent, dataset,"
            " created_at, ran, failed_check, misconception, status, facts, version, origin"
            " FROM attempts WHERE profile_id = ? AND course_id = ?"
        )
        args: tuple = (profile.id, self.course)
        if exercise_id is not None:
            query, args = query + " AND exercise_id = ?", (*args, exercise_id)
        with self._db() as db:
            rows = db.execute(query + " ORDER BY id", args).fetchall()
        return [
            Attempt(r[0], r[1], bool(r[2]), *r[3:8], Facts(bool(r[8]), *r[9:13]), r[13], r[14])
            for r in rows
        ]

    def record_event(self, profile: Profile, exercise_id: str, kind: str) -> None:
        """Record a hint shown or a solution revealed."""
        with self._db() as db:
            db.execute(
                "INSERT INTO events (profile_id, course_id, exercise_id, kind, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (profile.id, self.course, exercise_id, kind, time.time()),
            )

    def count_events(self, profile: Profile, exercise_id: str, kind: str) -> int:
        """Return how many hints (or reveals) the profile has had for an exercise."""
        with self._db() as db:
            row = db.execute(
                "SELECT COUNT(*) FROM events WHERE profile_id = ? AND course_id = ?"
                " AND exercise_id = ? AND kind = ?",
                (profile.id, self.course, exercise_id, kind),
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
                    f"DELETE FROM {table} WHERE profile_id = ? AND course_id = ?",
                    (profile.id, self.course),
                )
            db.execute("DELETE FROM training_runs WHERE profile_id = ?", (profile.id,))


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
            WHERE d.profile_id = :p AND d.course_id = :c AND d.exercise_id = t.exercise_id))
FROM touched t
"""
