"""The schema before Alembic: steps 1 to 6, written by hand for SQLite, kept so that a progress
file made by an older version is brought to schema 6 with its rows, then handed to Alembic
(app/storage/schema.py stamps it with revision 0001 and upgrades it to the head).

Only SQLite ever held these schemas; PostgreSQL starts at revision 0001.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from app.storage.migrations import add_courses, add_facts, add_origin

# Schema 1's tables as `CREATE ... IF NOT EXISTS`: each step below adds what came later.
TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS profiles (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at REAL NOT NULL,
    owner TEXT NOT NULL DEFAULT '', UNIQUE (owner, name));
CREATE TABLE IF NOT EXISTS learners (
    owner TEXT PRIMARY KEY,
    last_profile INTEGER REFERENCES profiles(id) ON DELETE SET NULL);
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
CREATE TABLE IF NOT EXISTS training_runs (
    id INTEGER PRIMARY KEY,
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    settings TEXT NOT NULL, train_loss REAL, val_loss REAL, samples TEXT NOT NULL,
    steps_per_s REAL NOT NULL, elapsed REAL NOT NULL, curve TEXT NOT NULL,
    dataset TEXT NOT NULL, code TEXT NOT NULL, created_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS training_runs_by_profile ON training_runs (profile_id);
CREATE TABLE IF NOT EXISTS submissions (
    ticket TEXT PRIMARY KEY,
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    exercise_id TEXT NOT NULL, code TEXT NOT NULL, server TEXT NOT NULL, created_at REAL NOT NULL);
"""
# Before identities (step 2) a machine had one list of profiles with unique names. SQLite
# cannot drop a UNIQUE constraint, so the table is rebuilt with the ids kept; those profiles
# stay unowned until the first browser that has none adopts them.
PROFILES_V2 = """
CREATE TABLE profiles_v2 (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at REAL NOT NULL,
    owner TEXT NOT NULL DEFAULT '', UNIQUE (owner, name));
INSERT INTO profiles_v2 (id, name, created_at) SELECT id, name, created_at FROM profiles;
DROP TABLE profiles;
ALTER TABLE profiles_v2 RENAME TO profiles;
"""


def is_legacy(path: Path) -> bool:
    """Return True for a progress file made before Alembic (tables, no alembic_version)."""
    if not path.is_file():
        return False
    with closing(sqlite3.connect(path, timeout=10)) as db:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return bool(names) and "alembic_version" not in names


def bring_to_six(path: Path) -> None:
    """Run steps 1 to 6 on an older progress file, keeping its rows (each step is idempotent)."""
    _owners(path)
    with closing(sqlite3.connect(path, timeout=10)) as db:
        db.execute("PRAGMA foreign_keys=ON")
        with db:
            db.executescript(TABLES)
            _tickets(db)
            add_facts(db)
            add_courses(db)
            add_origin(db)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', '6')")


def _owners(path: Path) -> None:
    """Step 2: give a version-1 database's profiles an owner (foreign keys off meanwhile)."""
    with closing(sqlite3.connect(path, timeout=10)) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(profiles)")]
        if not columns or "owner" in columns:
            return
        db.execute("PRAGMA foreign_keys=OFF")
        db.executescript(f"BEGIN IMMEDIATE; {PROFILES_V2} COMMIT;")


def _tickets(db: sqlite3.Connection) -> None:
    """Step 3: give attempts a ticket column, unique where set."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(attempts)")}
    if "ticket" not in columns:
        db.execute("ALTER TABLE attempts ADD COLUMN ticket TEXT")
    db.execute(
        "CREATE UNIQUE INDEX IF NOT EXISTS attempts_by_ticket ON attempts (ticket)"
        " WHERE ticket IS NOT NULL"
    )
