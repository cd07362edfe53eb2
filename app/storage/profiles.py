"""Learner profiles in the progress store, each owned by one browser's identity.

Mixed into storage.Store, whose `_db()` gives each call its own connection. An owner is the
identity of app/identity.py: a browser sees, picks and remembers only its own profiles.

    >>> ada = store.add_profile("ada", owner="3f2a...")
    >>> store.use_profile(ada); store.last_profile("3f2a...") == ada
    True
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS profiles (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at REAL NOT NULL,
    owner TEXT NOT NULL DEFAULT '', UNIQUE (owner, name));
CREATE TABLE IF NOT EXISTS learners (
    owner TEXT PRIMARY KEY,
    last_profile INTEGER REFERENCES profiles(id) ON DELETE SET NULL);
"""
# Before identities (schema version 1) a machine had one list of profiles with unique names.
# SQLite cannot drop a UNIQUE constraint, so the table is rebuilt with the ids kept; those
# profiles stay unowned until the first browser that has none adopts them.
PROFILES_V2 = """
CREATE TABLE profiles_v2 (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at REAL NOT NULL,
    owner TEXT NOT NULL DEFAULT '', UNIQUE (owner, name));
INSERT INTO profiles_v2 (id, name, created_at) SELECT id, name, created_at FROM profiles;
DROP TABLE profiles;
ALTER TABLE profiles_v2 RENAME TO profiles;
"""
COLUMNS = "id, name, owner"
MAX_NAME = 40


class StorageError(ValueError):
    """A database URL or a profile name cannot be used; the message says why."""


@dataclass(frozen=True)
class Profile:
    """A local learner: progress belongs to one profile, a profile to one identity."""

    id: int
    name: str
    owner: str = ""  # the browser identity it belongs to; "" for one made before identities


def migrate(path: Path) -> None:
    """Give a version-1 database's profiles an owner (foreign keys off while it is rebuilt)."""
    with closing(sqlite3.connect(path, timeout=10)) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(profiles)")]
        if not columns or "owner" in columns:
            return
        db.execute("PRAGMA foreign_keys=OFF")
        db.executescript(f"BEGIN IMMEDIATE; {PROFILES_V2} COMMIT;")


class Profiles:
    """The profile calls of the store."""

    def profiles(self, owner: str | None = None) -> list[Profile]:
        """Return one identity's profiles (every profile when owner is None), oldest first."""
        query, args = f"SELECT {COLUMNS} FROM profiles", ()
        if owner is not None:
            query, args = query + " WHERE owner = ?", (owner,)
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
                "INSERT OR IGNORE INTO profiles (name, created_at, owner) VALUES (?, ?, ?)",
                (name, time.time(), owner),
            )
            row = db.execute(
                f"SELECT {COLUMNS} FROM profiles WHERE owner = ? AND name = ?", (owner, name)
            ).fetchone()
        return Profile(*row)

    def last_profile(self, owner: str = "") -> Profile | None:
        """Return the profile this identity used most recently, if any."""
        with self._db() as db:
            row = db.execute(
                f"SELECT {COLUMNS} FROM profiles WHERE owner = ? AND id ="
                " (SELECT last_profile FROM learners WHERE owner = ?)",
                (owner, owner),
            ).fetchone()
        return Profile(*row) if row else None

    def use_profile(self, profile: Profile) -> None:
        """Remember profile as the one its identity opens next time."""
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO learners VALUES (?, ?)", (profile.owner, profile.id))

    def adopt_unowned(self, owner: str) -> Profile | None:
        """Give the profiles made before identities to owner if it has none; return the last used.

        Upgrading a one-person installation keeps that person's progress in their browser.
        """
        with self._db() as db:
            if db.execute("SELECT 1 FROM profiles WHERE owner = ?", (owner,)).fetchone():
                return None
            db.execute("UPDATE profiles SET owner = ? WHERE owner = ''", (owner,))
            last = db.execute("SELECT value FROM meta WHERE key = 'last_profile'").fetchone()
        adopted = self.profiles(owner)
        return next((p for p in adopted if last and str(p.id) == last[0]), None) or next(
            iter(adopted), None
        )
