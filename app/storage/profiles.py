"""Learner profiles, each owned by one identity, and their settings (a part of the store).

An owner is the identity of app/config/identity.py (a local browser) or the classroom's
"<issuer> <subject>": a browser sees, picks and remembers only its own profiles.

    >>> ada = store.learners.add_profile("ada", owner="3f2a...")
    >>> store.learners.use_profile(ada); store.learners.last_profile("3f2a...") == ada
    True
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

from app.config import StorageError
from app.storage.engine import Db, Part

__all__ = ["Learners", "OpenedProfile", "Profile", "StorageError"]
COLUMNS = "id, name, owner"
MAX_NAME = 40


@dataclass(frozen=True)
class Profile:
    """A local learner: progress belongs to one profile, a profile to one identity."""

    id: int
    name: str
    owner: str = ""  # the browser identity it belongs to; "" for one made before identities


class OpenedProfile(NamedTuple):
    """What `Learners.open_profile` returns: the profile, the identity's profiles, and whether
    the profile was made just now (then it has no work, no settings yet)."""

    profile: Profile
    profiles: list[Profile]
    made: bool


class Learners(Part):
    """The store's calls for profiles and their settings (whatever the course)."""

    def profiles(self, owner: str | None = None) -> list[Profile]:
        """Return one identity's profiles (every profile when owner is None), oldest first."""
        query, args = f"SELECT {COLUMNS} FROM profiles", {"o": owner}
        if owner is not None:
            query += " WHERE owner = :o"
        with self._db() as db:
            rows = db.execute(query + " ORDER BY id", args).fetchall()
        return [Profile(*row) for row in rows]

    def add_profile(self, name: str, owner: str = "") -> Profile:
        """Return owner's profile called name, creating it if new."""
        name = " ".join(name.split())
        if not name or len(name) > MAX_NAME:
            raise StorageError(f"A profile name needs 1 to {MAX_NAME} characters: got {len(name)}.")
        with self._db() as db:
            db.execute(
                "INSERT INTO profiles (name, created_at, owner) VALUES (:n, :t, :o)"
                " ON CONFLICT (owner, name) DO NOTHING",
                {"n": name, "t": time.time(), "o": owner},
            )
            row = db.execute(
                f"SELECT {COLUMNS} FROM profiles WHERE owner = :o AND name = :n",
                {"o": owner, "n": name},
            ).fetchone()
        return Profile(*row)

    def last_profile(self, owner: str = "") -> Profile | None:
        """Return the profile this identity used most recently, if any."""
        with self._db() as db:
            row = db.execute(
                f"SELECT {COLUMNS} FROM profiles WHERE owner = :o AND id ="
                " (SELECT last_profile FROM learners WHERE owner = :o)",
                {"o": owner},
            ).fetchone()
        return Profile(*row) if row else None

    def open_profile(self, owner: str, first: str, adopt: bool) -> OpenedProfile:
        """Return owner's profile to open, all of owner's profiles, and whether the profile was
        made by this call, in one transaction: the profile used last, else the oldest, else (if
        adopt: upgrading a one-person installation keeps that person's progress in their
        browser) the profiles made before identities, else a new one called first. A new
        browser's first page took five transactions for this, and the sidebar a sixth for the
        list."""
        made = False
        with self._db() as db:
            owned, last = self._owned(db, owner)
            taken = "UPDATE profiles SET owner = :o WHERE owner = ''"  # made before identities
            if not owned and adopt and db.execute(taken, {"o": owner}).rowcount:
                meta = db.execute("SELECT value FROM meta WHERE key = 'last_profile'").fetchone()
                owned, _ = self._owned(db, owner)
                last = next((p for p in owned if meta and str(p.id) == meta[0]), None)
            if not owned:
                made = (
                    db.execute(
                        "INSERT INTO profiles (name, created_at, owner) VALUES (:n, :t, :o)"
                        " ON CONFLICT (owner, name) DO NOTHING",
                        {"n": first, "t": time.time(), "o": owner},
                    ).rowcount
                    == 1
                )  # not if another page of this identity made it meanwhile
                owned, _ = self._owned(db, owner)
        return OpenedProfile(last or owned[0], owned, made)

    @staticmethod
    def _owned(db: Db, owner: str) -> tuple[list[Profile], Profile | None]:
        """Return owner's profiles, oldest first, and the one it used last (if any)."""
        rows = db.execute(
            f"SELECT {COLUMNS}, id = (SELECT last_profile FROM learners WHERE owner = :o)"
            " FROM profiles WHERE owner = :o ORDER BY id",
            {"o": owner},
        ).fetchall()
        owned = [Profile(*row[:3]) for row in rows]
        return owned, next((p for p, row in zip(owned, rows, strict=True) if row[3]), None)

    def use_profile(self, profile: Profile) -> None:
        """Remember profile as the one its identity opens next time."""
        with self._db() as db:
            db.execute(
                "INSERT INTO learners (owner, last_profile) VALUES (:o, :p)"
                " ON CONFLICT (owner) DO UPDATE SET last_profile = excluded.last_profile",
                {"o": profile.owner, "p": profile.id},
            )

    def profile(self, profile_id: int) -> Profile | None:
        """Return the profile with this id, None if there is none."""
        with self._db() as db:
            row = db.execute(
                f"SELECT {COLUMNS} FROM profiles WHERE id = :i", {"i": profile_id}
            ).fetchone()
        return Profile(*row) if row else None

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
