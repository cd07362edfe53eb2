"""Submissions in the store: pending before grading, replaced by their attempt in one go."""

from __future__ import annotations

import sqlite3

import pytest

from app.storage import Attempt, open_store
from app.storage.store import SCHEMA_VERSION

URL = "sqlite:///{}/progress.sqlite3"


@pytest.fixture
def store(store_url):
    """Return an empty store, on SQLite then on PostgreSQL (tests/conftest.py store_url)."""
    return open_store(store_url)


def _attempt(code: str, solved: bool = False) -> Attempt:
    return Attempt("dprobs", code, solved, "`dprobs` is inaccurate.", 0.02, 5.0, "default")


def test_a_submission_is_pending_then_replaced_by_its_attempt(store):
    me = store.learners.add_profile("ada")
    assert store.submissions.begin_submission(
        me, "dprobs", "p:1", "dprobs = 1", "dprobs = 12", "s1"
    )
    assert [(p.ticket, p.code) for p in store.submissions.pending(me, "dprobs")] == [
        ("p:1", "dprobs = 1")
    ]
    assert store.work.draft(me, "dprobs") == "dprobs = 12", "the draft is saved with the submission"
    assert store.work.attempts(me) == []
    store.submissions.finish_submission(me, "p:1", _attempt("dprobs = 1"))
    assert store.submissions.pending(me, "dprobs") == []
    assert [a.code for a in store.work.attempts(me)] == ["dprobs = 1"]


def test_a_pending_submission_survives_reopening_the_store(store_url, store):
    me = store.learners.add_profile("ada")
    store.submissions.begin_submission(me, "dprobs", "p:1", "dprobs = 1", "dprobs = 1", "s1")
    again = open_store(store_url)
    assert [(p.code, p.server) for p in again.submissions.pending(me, "dprobs")] == [
        ("dprobs = 1", "s1")
    ]
    assert again.work.attempts(me) == []


def test_a_ticket_is_graded_once(store):
    me = store.learners.add_profile("ada")
    store.submissions.begin_submission(me, "dprobs", "p:1", "dprobs = 1", "dprobs = 1", "s1")
    store.submissions.finish_submission(me, "p:1", _attempt("dprobs = 1"))
    assert not store.submissions.begin_submission(
        me, "dprobs", "p:1", "dprobs = 1", "dprobs = 1", "s2"
    )
    store.submissions.finish_submission(me, "p:1", _attempt("dprobs = 1"))
    assert len(store.work.attempts(me)) == 1 and store.submissions.pending(me, "dprobs") == []


def test_a_busy_grader_leaves_no_attempt_and_no_pending_row(store):
    me = store.learners.add_profile("ada")
    store.submissions.begin_submission(me, "dprobs", "p:1", "dprobs = 1", "dprobs = 1", "s1")
    store.submissions.finish_submission(me, "p:1", None)
    assert store.submissions.pending(me, "dprobs") == [] and store.work.attempts(me) == []


def test_an_attempt_supersedes_older_pending_submissions_of_its_exercise(store):
    me = store.learners.add_profile("ada")
    store.submissions.begin_submission(me, "dprobs", "old", "dprobs = 0", "dprobs = 0", "dead")
    store.submissions.begin_submission(me, "dcounts", "other", "dcounts = 0", "dcounts = 0", "dead")
    store.submissions.begin_submission(me, "dprobs", "new", "dprobs = 1", "dprobs = 1", "s1")
    store.submissions.finish_submission(me, "new", _attempt("dprobs = 1"))
    assert store.submissions.pending(me, "dprobs") == []
    assert [p.ticket for p in store.submissions.pending(me, "dcounts")] == ["other"]


def test_a_schema_1_store_gets_tickets(tmp_path):
    path = tmp_path / "progress.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE attempts (id INTEGER PRIMARY KEY, profile_id INTEGER NOT NULL,"
            " exercise_id TEXT NOT NULL, code TEXT NOT NULL, solved INTEGER NOT NULL,"
            " summary TEXT NOT NULL, elapsed REAL NOT NULL, time_spent REAL NOT NULL,"
            " dataset TEXT NOT NULL, created_at REAL NOT NULL)"
        )
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    store = open_store(URL.format(tmp_path))
    me = store.learners.add_profile("ada")
    store.submissions.begin_submission(me, "dprobs", "p:1", "dprobs = 1", "dprobs = 1", "s1")
    store.submissions.finish_submission(me, "p:1", _attempt("dprobs = 1"))
    assert len(store.work.attempts(me)) == 1
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
            str(SCHEMA_VERSION),
        )
