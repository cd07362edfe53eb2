"""Submissions in the progress store: recorded before grading, replaced by their attempt.

Mixed into storage.Store, whose `_db()` gives each call its own connection. A submission is a
pending row, committed before the grader sees the code; its attempt (with the verdict) replaces
it in one transaction. A row left behind means the server stopped in between: the page says the
code was not graded and keeps it. A ticket names a submission once, so a browser that sends the
same submission again (after a restart) does not get it graded twice.

    >>> store.begin_submission(me, "dlogprobs", "page:1", code, code, server="a1")
    True
    >>> store.finish_submission(me, "page:1", attempt)
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    ticket TEXT PRIMARY KEY,
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    exercise_id TEXT NOT NULL, code TEXT NOT NULL, server TEXT NOT NULL, created_at REAL NOT NULL);
"""


@dataclass(frozen=True)
class Pending:
    """A submission recorded before grading and not replaced by its attempt (yet)."""

    ticket: str
    exercise_id: str
    code: str
    server: str
    created_at: float


class Submissions:
    """The store's calls for submissions on their way to the grader."""

    def begin_submission(
        self, profile, exercise_id: str, ticket: str, code: str, draft: str, server: str
    ) -> bool:
        """Record a submission before grading it, and the draft, in one transaction.

        Return False if the ticket already has its attempt (it was graded before a restart).
        """
        with self._db() as db:
            done = db.execute("SELECT 1 FROM attempts WHERE ticket = ?", (ticket,)).fetchone()
            if done is None:
                db.execute(
                    "INSERT OR REPLACE INTO submissions (ticket, profile_id, exercise_id, code,"
                    " server, created_at, course_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (ticket, profile.id, exercise_id, code, server, time.time(), self.course),
                )
            upsert_draft(db, profile, self.course, exercise_id, draft)
        return done is None

    def finish_submission(self, profile, ticket: str, attempt) -> None:
        """Replace a pending submission by its attempt (None: by nothing) in one transaction.

        Older pending submissions of the same exercise go too: this one supersedes them.
        """
        with self._db() as db:
            row = db.execute("SELECT created_at FROM submissions WHERE ticket = ?", (ticket,))
            since = (row.fetchone() or (time.time(),))[0]
            if attempt is not None:
                insert_attempt(db, profile, self.course, attempt, ticket)
            db.execute(
                "DELETE FROM submissions WHERE ticket = ? OR (profile_id = ? AND course_id = ?"
                " AND exercise_id = ? AND created_at <= ?)",
                (ticket, profile.id, self.course, attempt.exercise_id if attempt else "", since),
            )

    def pending(self, profile, exercise_id: str) -> list[Pending]:
        """Return the profile's submissions of an exercise not yet graded, oldest first."""
        with self._db() as db:
            rows = db.execute(
                "SELECT ticket, exercise_id, code, server, created_at FROM submissions"
                " WHERE profile_id = ? AND course_id = ? AND exercise_id = ? ORDER BY created_at",
                (profile.id, self.course, exercise_id),
            ).fetchall()
        return [Pending(*row) for row in rows]


def add_tickets(db: sqlite3.Connection) -> None:
    """Give attempts a ticket column (schema 1 had none), unique where set."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(attempts)")}
    if "ticket" not in columns:
        db.execute("ALTER TABLE attempts ADD COLUMN ticket TEXT")
    db.execute(
        "CREATE UNIQUE INDEX IF NOT EXISTS attempts_by_ticket ON attempts (ticket)"
        " WHERE ticket IS NOT NULL"
    )


def upsert_draft(db: sqlite3.Connection, profile, course: str, exercise_id: str, code: str) -> None:
    """Keep the code typed for an exercise of a course (inside the caller's transaction)."""
    db.execute(
        "INSERT OR REPLACE INTO drafts (profile_id, course_id, exercise_id, code, updated_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (profile.id, course, exercise_id, code, time.time()),
    )


def insert_attempt(db: sqlite3.Connection, profile, course: str, a, ticket: str | None) -> None:
    """Insert one attempt at a course's exercise (inside the caller's transaction); a ticket
    already recorded is kept."""
    facts = a.facts
    db.execute(
        "INSERT OR IGNORE INTO attempts (profile_id, exercise_id, code, solved, summary, elapsed,"
        " time_spent, dataset, created_at, ticket, ran, failed_check, misconception, status,"
        " facts, course_id, version, origin)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            profile.id,
            a.exercise_id,
            a.code,
            int(a.solved),
            a.summary,
            a.elapsed,
            a.time_spent,
            a.dataset,
            a.created_at or time.time(),
            ticket,
            int(facts.ran),
            facts.failed_check,
            facts.misconception,
            facts.status,
            facts.source,
            course,
            a.version,
            a.origin,
        ),
    )
