"""One learner's data, exported whole or deleted whole (`python -m app.storage export|delete`).

A part of the store (app/storage/store.py). A learner is found by identity (the classroom's
"<issuer> <subject>", or a local browser's identity: a profile's owner) or by profile id;
everything kept about a profile is a row tied to it (drafts, attempts, pending submissions,
hints and reveals, settings, training runs finished or queued), in every course, and goes with
it: the foreign keys cascade. The export also carries the audit log's entries about the learner
(and the class-wide ones): who read or changed their data, and when; those entries stay when
the learner is deleted (auditlog.py).

    >>> found = store.learners.profiles("https://id.uni.edu 42")
    >>> data = store.privacy.export_profiles(found)
    >>> store.privacy.delete_profiles(found)
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING

from app.storage import auditlog
from app.storage.engine import Db, Part

if TYPE_CHECKING:
    from app.storage.profiles import Profile

FORMAT = "backprop-ninja/learner-export/1"
# Every table that holds a profile's rows, and the order its rows are listed in.
TABLES = {
    "settings": "key",
    "drafts": "course_id, exercise_id",
    "attempts": "id",
    "submissions": "created_at",
    "events": "id",
    "training_runs": "id",
    "training_queue": "id",
    "word_list_uploads": "created_at",
    "quota_hits": "quota",
}
JSON_COLUMNS = {  # a training run's, stored as JSON text
    "training_runs": ("settings", "samples", "curve"),
    "training_queue": ("settings", "curve", "report"),
}
# Tables keyed by the identity, not the profile: which profile it used last, and who the person
# is (the provider's name, e-mail and groups, for the instructor's dashboard), and their sign-ins.
OWNER_TABLES = ("learners", "people", "sessions")


class Privacy(Part):
    """The store's calls that export or delete a learner's data."""

    def export_profiles(self, profiles: list[Profile]) -> dict:
        """Return everything kept about these profiles, as plain JSON-ready data."""
        with self._db() as db:
            return {"format": FORMAT, "profiles": [_export(db, p) for p in profiles]}

    def delete_profiles(self, profiles: list[Profile]) -> int:
        """Delete these profiles with every row tied to them, in every course; return how
        many rows went (the profiles' included)."""
        gone = 0
        with self._db() as db:
            for profile in profiles:
                for table in TABLES:  # counted, then left to the foreign keys' cascade
                    gone += _count(db, table, profile.id)
                gone += db.execute("DELETE FROM profiles WHERE id = :p", {"p": profile.id}).rowcount
                for table in OWNER_TABLES:  # once the identity has no profile left
                    db.execute(
                        f"DELETE FROM {table} WHERE owner = :o"
                        " AND NOT EXISTS (SELECT 1 FROM profiles WHERE owner = :o)",
                        {"o": profile.owner},
                    )
        return gone


def _export(db: Db, profile: Profile) -> dict:
    """Return one profile and its rows, table by table."""
    row = db.execute(
        "SELECT id, name, owner, created_at FROM profiles WHERE id = :p", {"p": profile.id}
    ).one()
    found = dict(row._mapping)
    for table, order in TABLES.items():
        rows = db.execute(
            f"SELECT * FROM {table} WHERE profile_id = :p ORDER BY {order}", {"p": profile.id}
        )
        found[table] = [_plain(table, dict(r._mapping)) for r in rows]
    person = db.execute(
        "SELECT name, email, groups, role, last_seen FROM people WHERE owner = :o",
        {"o": profile.owner},
    ).first()
    found["person"] = (
        {**dict(person._mapping), "groups": json.loads(person.groups)} if person else None
    )
    found["audit"] = [asdict(e) for e in auditlog.about(db, profile.owner)]
    return found


def _plain(table: str, row: dict) -> dict:
    """Return a row without its profile id, a training run's JSON columns decoded."""
    row.pop("profile_id", None)
    for name in JSON_COLUMNS.get(table, ()):
        row[name] = json.loads(row[name]) if row[name] is not None else None
    return row


def _count(db: Db, table: str, profile_id: int) -> int:
    """Return how many rows of a table belong to a profile."""
    return db.execute(
        f"SELECT COUNT(*) FROM {table} WHERE profile_id = :p", {"p": profile_id}
    ).scalar_one()
