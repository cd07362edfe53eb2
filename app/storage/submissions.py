"""Submissions in the progress store: recorded before grading, replaced by their attempt.

A part of the store (app/storage/store.py), each call in one transaction. A submission is a
pending row, committed before the grader sees the code; its attempt (with the verdict) replaces
it in one transaction. A row left behind means the server stopped in between: the page says the
code was not graded and keeps it. A ticket names a submission once, so a browser that sends the
same submission again (after a restart) does not get it graded twice: the ticket is unique
among attempts, so two replicas or two tabs racing with one ticket record one attempt.

    >>> store.submissions.begin_submission(me, "dlogprobs", "page:1", code, code, server="a1")
    True
    >>> store.submissions.finish_submission(me, "page:1", attempt)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.storage.engine import Part
from app.storage.work import Attempt, insert_attempt, upsert_draft

if TYPE_CHECKING:
    from app.storage.profiles import Profile


@dataclass(frozen=True)
class Pending:
    """A submission recorded before grading and not replaced by its attempt (yet)."""

    ticket: str
    exercise_id: str
    code: str
    server: str
    created_at: float


class Submissions(Part):
    """The store's calls for submissions on their way to the grader."""

    def begin_submission(
        self, profile: Profile, exercise_id: str, ticket: str, code: str, draft: str, server: str
    ) -> bool:
        """Record a submission before grading it, and the draft, in one transaction.

        Return False if the ticket already has its attempt (it was graded before a restart).
        """
        with self._db() as db:
            done = db.execute("SELECT 1 FROM attempts WHERE ticket = :t", {"t": ticket}).fetchone()
            if done is None:
                db.execute(
                    "INSERT INTO submissions (ticket, profile_id, exercise_id, code, server,"
                    " created_at, course_id) VALUES (:t, :p, :e, :code, :s, :at, :c)"
                    " ON CONFLICT (ticket) DO UPDATE SET profile_id = excluded.profile_id,"
                    " exercise_id = excluded.exercise_id, code = excluded.code,"
                    " server = excluded.server, created_at = excluded.created_at,"
                    " course_id = excluded.course_id",
                    {
                        "t": ticket,
                        "p": profile.id,
                        "e": exercise_id,
                        "code": code,
                        "s": server,
                        "at": time.time(),
                        "c": self.course,
                    },
                )
            upsert_draft(db, profile, self.course, exercise_id, draft)
        return done is None

    def finish_submission(self, profile: Profile, ticket: str, attempt: Attempt | None) -> None:
        """Replace a pending submission by its attempt (None: by nothing) in one transaction.

        Older pending submissions of the same exercise go too: this one supersedes them.
        """
        with self._db() as db:
            row = db.execute("SELECT created_at FROM submissions WHERE ticket = :t", {"t": ticket})
            since = (row.fetchone() or (time.time(),))[0]
            if attempt is not None:
                insert_attempt(db, profile, self.course, attempt, ticket)
            db.execute(
                "DELETE FROM submissions WHERE ticket = :t OR (profile_id = :p AND course_id = :c"
                " AND exercise_id = :e AND created_at <= :since)",
                {
                    "t": ticket,
                    "p": profile.id,
                    "c": self.course,
                    "e": attempt.exercise_id if attempt else "",
                    "since": since,
                },
            )

    def pending(self, profile: Profile, exercise_id: str) -> list[Pending]:
        """Return the profile's submissions of an exercise not yet graded, oldest first."""
        with self._db() as db:
            rows = db.execute(
                "SELECT ticket, exercise_id, code, server, created_at FROM submissions WHERE"
                " profile_id = :p AND course_id = :c AND exercise_id = :e ORDER BY created_at",
                {"p": profile.id, "c": self.course, "e": exercise_id},
            ).fetchall()
        return [Pending(*row) for row in rows]
