"""What one learner may ask of the class's servers, counted on every replica at once.

Four limits (AppConfig's `quota_*`, docs/settings.md): training runs queued or running at once,
word lists uploaded in 24 hours, submissions in a minute, and the longest code kept as a draft
or graded. Each refusal says which limit and when it frees, in the one voice of the pages, and
is recorded (`quota_hits`: who, which limit, how often, when last) for the dashboard. The counts
are read from the database, so two tabs on two replicas share one learner's limits.

    >>> attempts_refusal(count=30, oldest=now - 48, limit=30, now=now).message()[-22:]
    'submit again in 12 s.'
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from app.storage import EDITOR, Part

RUNS, WORD_LISTS, ATTEMPTS, DRAFT = "runs", "word_lists", "attempts", "draft"
MINUTE, DAY = 60.0, 86400.0
KIB = 1024


@dataclass(frozen=True)
class Refusal:
    """A request a limit refused: which limit, its value, what was asked, when it frees."""

    limit: str
    allowed: int
    asked: int
    frees_at: float | None = None  # a time; None: when the learner acts (a run ends, shorter code)
    now: float = 0.0

    def message(self) -> str:
        """Return the sentence the page shows."""
        if self.limit == RUNS:
            return (
                f"You have {self.asked} training run(s) queued or running, the most one learner "
                "may; Start is free again when one ends (stop it, or wait for it)."
            )
        if self.limit == WORD_LISTS:
            at = datetime.fromtimestamp(self.frees_at or self.now, UTC).strftime("%H:%M UTC")
            return (
                f"You have uploaded {self.asked} word lists in the last 24 hours, the most one "
                f"learner may; the next may be uploaded at {at}."
            )
        if self.limit == ATTEMPTS:
            wait = max(1, math.ceil((self.frees_at or self.now) - self.now))
            return (
                f"You have submitted {self.asked} times in the last minute, the most one learner "
                f"may; submit again in {wait} s."
            )
        return (
            f"Your code is {self.asked} KiB, longer than the {self.allowed} KiB one learner may "
            "keep; it was not saved or graded. Shorten it."
        )


@dataclass(frozen=True)
class Hit:
    """A learner who met a limit: how often, and when last (the dashboard's rows)."""

    profile_id: int
    limit: str
    count: int
    last_at: float


def runs_refusal(active: int, limit: int) -> Refusal | None:
    """Refuse a run when the learner has `limit` runs queued or running already."""
    return Refusal(RUNS, limit, active) if active >= limit else None


def windowed(limit_name: str, count: int, oldest: float | None, limit: int, now: float):
    """Refuse when `count` requests made in the window (oldest first at `oldest`) reach
    `limit`: it frees when the oldest leaves the window."""
    if count < limit:
        return None
    window = MINUTE if limit_name == ATTEMPTS else DAY
    frees = (oldest if oldest is not None else now) + window
    return Refusal(limit_name, limit, count, frees, now)


def attempts_refusal(count: int, oldest: float | None, limit: int, now: float):
    """Refuse a submission when `limit` were made in the last minute."""
    return windowed(ATTEMPTS, count, oldest, limit, now)


def draft_refusal(code: str, limit_kib: int) -> Refusal | None:
    """Refuse code longer than `limit_kib` KiB (UTF-8) as a draft or a submission."""
    size = len(code.encode("utf-8", "surrogatepass"))
    return Refusal(DRAFT, limit_kib, math.ceil(size / KIB)) if size > limit_kib * KIB else None


class Quotas(Part):
    """The store's calls that count a learner's recent requests and record who met a limit."""

    def attempts_since(self, profile_id: int, since: float) -> tuple[int, float | None]:
        """Return how many submissions the learner made since `since` (graded or pending, on
        any replica, in any course) and when the oldest was made. Only what they submitted in
        the editor counts: not the steps a solved whole pass or notebook records for them (one
        upload records up to 30), nor a regrade."""
        with self._db() as db:
            row = db.execute(
                "SELECT COUNT(*), MIN(t) FROM (SELECT created_at AS t FROM attempts"
                " WHERE profile_id = :p AND created_at >= :since AND origin = :editor"
                " UNION ALL SELECT created_at FROM submissions"
                " WHERE profile_id = :p AND created_at >= :since) AS recent",
                {"p": profile_id, "since": since, "editor": EDITOR},
            ).one()
        return int(row[0]), row[1]

    def uploads_since(self, profile_id: int, since: float) -> tuple[int, float | None]:
        """Return how many word lists the learner uploaded since `since`, and the oldest's time."""
        with self._db() as db:
            row = db.execute(
                "SELECT COUNT(*), MIN(created_at) FROM word_list_uploads"
                " WHERE profile_id = :p AND created_at >= :since",
                {"p": profile_id, "since": since, "editor": EDITOR},
            ).one()
        return int(row[0]), row[1]

    def note_upload(self, profile_id: int, digest: str) -> None:
        """Record that the learner uploaded the word list `digest` (once per list)."""
        with self._db() as db:
            db.execute(
                "INSERT INTO word_list_uploads (profile_id, digest, created_at)"
                " VALUES (:p, :d, :now) ON CONFLICT (profile_id, digest) DO NOTHING",
                {"p": profile_id, "d": digest, "now": time.time()},
            )

    def hit(self, profile_id: int, limit: str) -> None:
        """Record that the learner met a limit (one row per learner and limit)."""
        with self._db() as db:
            db.execute(
                "INSERT INTO quota_hits (profile_id, quota, count, last_at)"
                " VALUES (:p, :q, 1, :now) ON CONFLICT (profile_id, quota)"
                " DO UPDATE SET count = quota_hits.count + 1, last_at = excluded.last_at",
                {"p": profile_id, "q": limit, "now": time.time()},
            )

    def hits(self) -> list[Hit]:
        """Return every learner and limit met, the latest first."""
        with self._db() as db:
            rows = db.execute(
                "SELECT profile_id, quota, count, last_at FROM quota_hits ORDER BY last_at DESC"
            ).fetchall()
        return [Hit(*r) for r in rows]
