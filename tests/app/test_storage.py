"""The progress store: profiles, drafts, attempts, events, totals and reset, in SQLite."""

from __future__ import annotations

import sqlite3

import pytest

from app.storage import Attempt, StorageError, open_store
from app.storage.store import SCHEMA_VERSION


@pytest.fixture
def store(tmp_path):
    return open_store(f"sqlite:///{tmp_path}/progress.sqlite3")


def _attempt(exercise: str, solved: bool, spent: float = 10.0) -> Attempt:
    return Attempt(exercise, "code", solved, "summary", 0.02, spent, "default")


@pytest.mark.parametrize("url", ["postgres://x/y", "sqlite:///", "sqlite:///:memory:", "x.db"])
def test_only_sqlite_file_urls_are_accepted(url):
    with pytest.raises(StorageError, match="sqlite:///<path>"):
        open_store(url)


def test_the_schema_is_created_with_its_version(tmp_path, store):
    db = sqlite3.connect(tmp_path / "progress.sqlite3")
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"meta", "profiles", "settings", "drafts", "attempts", "submissions", "events"} <= tables
    assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
        str(SCHEMA_VERSION),
    )


def test_profiles_are_created_once_and_remembered(store):
    ada = store.add_profile("  ada   lovelace ")
    assert ada.name == "ada lovelace"
    assert store.add_profile("ada lovelace") == ada
    assert store.last_profile() is None
    store.use_profile(ada)
    assert store.last_profile() == ada


@pytest.mark.parametrize("name", ["", "   ", "x" * 41])
def test_a_profile_name_needs_one_to_forty_characters(store, name):
    with pytest.raises(StorageError, match="1 to 40 characters"):
        store.add_profile(name)


def test_drafts_and_settings_belong_to_one_profile(store):
    ada, bob = store.add_profile("ada"), store.add_profile("bob")
    store.save_draft(ada, "dh", "dh = 1")
    store.save_draft(ada, "dh", "dh = 2")
    store.set_setting(ada, "dataset", "names")
    assert store.draft(ada, "dh") == "dh = 2" and store.draft(bob, "dh") is None
    assert store.setting(ada, "dataset") == "names" and store.setting(bob, "dataset", "d") == "d"


def test_progress_totals_attempts_time_hints_and_reveals(store):
    ada = store.add_profile("ada")
    store.record_attempt(ada, _attempt("dh", False, 60))
    store.record_attempt(ada, _attempt("dh", True, 30))
    store.record_event(ada, "dh", "hint")
    store.record_event(ada, "dh", "reveal")
    store.save_draft(ada, "dW2", "dW2 = ...")
    totals = {p.exercise_id: p for p in store.progress(ada)}
    dh = totals["dh"]
    assert (dh.attempts, dh.solved, dh.time_spent, dh.hints, dh.revealed) == (2, True, 90, 1, True)
    assert totals["dW2"].attempts == 0 and totals["dW2"].last_at > 0
    assert store.statuses(ada) == {"dh": "solved"}
    assert [a.solved for a in store.attempts(ada, "dh")] == [False, True]


def test_reset_keeps_the_profile_and_its_settings(store):
    ada = store.add_profile("ada")
    store.record_attempt(ada, _attempt("dh", True))
    store.save_draft(ada, "dh", "x")
    store.set_setting(ada, "dataset", "names")
    store.reset(ada)
    assert store.progress(ada) == [] and store.draft(ada, "dh") is None
    assert store.setting(ada, "dataset") == "names" and store.profiles() == [ada]


def test_a_second_store_on_the_same_file_sees_the_same_progress(tmp_path, store):
    ada = store.add_profile("ada")
    store.record_attempt(ada, _attempt("dh", True))
    again = open_store(f"sqlite:///{tmp_path}/progress.sqlite3")
    assert again.statuses(ada) == {"dh": "solved"}
