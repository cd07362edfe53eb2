"""Schema step 5: progress keyed by (course, exercise), attempts carry the exercise's version."""

from __future__ import annotations

import sqlite3

import pytest

from app.storage import DEFAULT_COURSE, Attempt, StorageError, open_store
from app.storage.migrations import add_courses
from app.storage.store import SCHEMA_VERSION

# Schema 4 as it was written before step 5: every table that holds an exercise id.
SCHEMA_4 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE profiles (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at REAL NOT NULL,
    owner TEXT NOT NULL DEFAULT '', UNIQUE (owner, name));
CREATE TABLE drafts (
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    exercise_id TEXT NOT NULL, code TEXT NOT NULL, updated_at REAL NOT NULL,
    PRIMARY KEY (profile_id, exercise_id));
CREATE TABLE attempts (
    id INTEGER PRIMARY KEY,
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    exercise_id TEXT NOT NULL, code TEXT NOT NULL, solved INTEGER NOT NULL,
    summary TEXT NOT NULL, elapsed REAL NOT NULL, time_spent REAL NOT NULL,
    dataset TEXT NOT NULL, created_at REAL NOT NULL, ticket TEXT,
    ran INTEGER NOT NULL DEFAULT 0, failed_check TEXT NOT NULL DEFAULT '',
    misconception TEXT NOT NULL DEFAULT '', status TEXT NOT NULL DEFAULT '',
    facts TEXT NOT NULL DEFAULT 'graded');
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    exercise_id TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('hint', 'reveal')),
    created_at REAL NOT NULL);
CREATE TABLE submissions (
    ticket TEXT PRIMARY KEY,
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    exercise_id TEXT NOT NULL, code TEXT NOT NULL, server TEXT NOT NULL, created_at REAL NOT NULL);
INSERT INTO meta VALUES ('schema_version', '4');
INSERT INTO profiles VALUES (1, 'ada', 0.0, '');
INSERT INTO drafts VALUES (1, 'dW1', 'dW1 = old draft', 5.0);
INSERT INTO attempts (profile_id, exercise_id, code, solved, summary, elapsed, time_spent,
    dataset, created_at, ran, status) VALUES (1, 'dW1', 'dW1 = 1', 1, 'ok', 0.1, 3.0, 'default',
    6.0, 1, 'solved');
INSERT INTO events (profile_id, exercise_id, kind, created_at) VALUES (1, 'dW1', 'hint', 7.0);
INSERT INTO submissions VALUES ('page:1', 1, 'dW1', 'dW1 = 2', 'a1', 8.0);
"""


def _attempt(exercise: str, solved: bool, version: str = "") -> Attempt:
    return Attempt(exercise, "code", solved, "summary", 0.1, 5.0, "default", version=version)


@pytest.fixture
def old_database(tmp_path):
    """Return the path of a database written by schema 4, with a row in every table."""
    path = tmp_path / "progress.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA_4)
    return path


def test_an_old_database_keeps_every_row_in_the_default_course(old_database):
    store = open_store(f"sqlite:///{old_database}")
    (ada,) = store.learners.profiles()
    assert store.course == DEFAULT_COURSE
    assert store.work.draft(ada, "dW1") == "dW1 = old draft"
    (old,) = store.work.attempts(ada)
    assert (old.exercise_id, old.solved, old.version) == ("dW1", True, "")
    assert store.work.statuses(ada) == {"dW1": "solved"}
    assert store.work.event_counts(ada, "dW1") == {"hint": 1}
    assert [p.ticket for p in store.submissions.pending(ada, "dW1")] == ["page:1"]
    with sqlite3.connect(old_database) as db:
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        keys = [r[1] for r in db.execute("PRAGMA table_info(drafts)") if r[5]]
    assert version == (str(SCHEMA_VERSION),)
    assert keys == ["profile_id", "course_id", "exercise_id"]


def test_another_course_sees_none_of_the_old_rows(old_database):
    other = open_store(f"sqlite:///{old_database}", course="attention")
    (ada,) = other.learners.profiles()
    assert other.work.draft(ada, "dW1") is None
    assert (
        other.work.attempts(ada) == []
        and other.work.statuses(ada) == {}
        and other.work.progress(ada) == []
    )
    assert other.work.event_counts(ada, "dW1") == {} and other.submissions.pending(ada, "dW1") == []


def test_the_step_runs_once_and_again_changes_nothing(old_database):
    open_store(f"sqlite:///{old_database}")
    with sqlite3.connect(old_database) as db:
        before = db.execute("SELECT * FROM drafts").fetchall()
        add_courses(db)
        assert db.execute("SELECT * FROM drafts").fetchall() == before
    store = open_store(f"sqlite:///{old_database}")
    (ada,) = store.learners.profiles()
    assert len(store.work.attempts(ada)) == 1


def test_two_courses_with_the_same_exercise_id_never_share_progress(tmp_path):
    url = f"sqlite:///{tmp_path}/progress.sqlite3"
    mlp, softplus = open_store(url), open_store(url, course="softplus")
    ada = mlp.learners.add_profile("ada")
    mlp.work.save_draft(ada, "dW1", "dW1 = mlp")
    softplus.work.save_draft(ada, "dW1", "dW1 = softplus")
    mlp.work.record_attempt(ada, _attempt("dW1", True))
    softplus.work.record_attempt(ada, _attempt("dW1", False))
    softplus.work.record_event(ada, "dW1", "reveal")
    assert (mlp.work.draft(ada, "dW1"), softplus.work.draft(ada, "dW1")) == (
        "dW1 = mlp",
        "dW1 = softplus",
    )
    assert mlp.work.statuses(ada) == {"dW1": "solved"}
    assert softplus.work.statuses(ada) == {"dW1": "attempted"}
    assert [p.revealed for p in mlp.work.progress(ada)] == [False]
    assert [p.revealed for p in softplus.work.progress(ada)] == [True]


def test_a_submission_is_pending_and_finished_in_its_own_course(tmp_path):
    url = f"sqlite:///{tmp_path}/progress.sqlite3"
    mlp, softplus = open_store(url), open_store(url, course="softplus")
    ada = mlp.learners.add_profile("ada")
    assert softplus.submissions.begin_submission(ada, "dW1", "page:1", "dW1 = 1", "dW1 = 1", "a1")
    assert (
        mlp.submissions.pending(ada, "dW1") == []
        and len(softplus.submissions.pending(ada, "dW1")) == 1
    )
    softplus.submissions.finish_submission(ada, "page:1", _attempt("dW1", True, "v2"))
    assert softplus.submissions.pending(ada, "dW1") == []
    assert [a.version for a in softplus.work.attempts(ada)] == ["v2"] and mlp.work.attempts(
        ada
    ) == []


def test_an_attempt_says_which_version_of_the_exercise_it_answered(tmp_path):
    store = open_store(f"sqlite:///{tmp_path}/progress.sqlite3")
    ada = store.learners.add_profile("ada")
    store.work.record_attempt(ada, _attempt("dh", True, "3f2a9c"))
    store.work.record_attempt(ada, _attempt("dh", False, "b71e04"))
    assert [(a.version, a.solved) for a in store.work.attempts(ada, "dh")] == [
        ("3f2a9c", True),
        ("b71e04", False),
    ]


def test_reset_empties_one_course_and_keeps_the_other(tmp_path):
    url = f"sqlite:///{tmp_path}/progress.sqlite3"
    mlp, softplus = open_store(url), open_store(url, course="softplus")
    ada = mlp.learners.add_profile("ada")
    for store in (mlp, softplus):
        store.work.save_draft(ada, "dW1", "dW1 = 0")
        store.work.record_attempt(ada, _attempt("dW1", True))
    softplus.work.reset(ada)
    assert softplus.work.progress(ada) == [] and softplus.work.draft(ada, "dW1") is None
    assert mlp.work.statuses(ada) == {"dW1": "solved"} and mlp.work.draft(ada, "dW1") == "dW1 = 0"


def test_a_store_needs_a_course_id(tmp_path):
    with pytest.raises(StorageError, match="course id"):
        open_store(f"sqlite:///{tmp_path}/progress.sqlite3", course="")
