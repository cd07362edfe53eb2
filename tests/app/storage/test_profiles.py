"""Profiles per browser identity: separate lists and last-used profiles, and the upgrade."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from app.storage import Attempt, open_store


@pytest.fixture
def store(store_url):
    """Return an empty store, on SQLite then on PostgreSQL (tests/conftest.py store_url)."""
    return open_store(store_url)


def test_two_identities_may_both_have_a_learner_and_see_only_their_own(store):
    ada, bob = (
        store.learners.add_profile("learner", "ada"),
        store.learners.add_profile("learner", "bob"),
    )
    assert ada.id != bob.id and (ada.owner, bob.owner) == ("ada", "bob")
    store.learners.add_profile("grace", "ada")
    assert [p.name for p in store.learners.profiles("ada")] == ["learner", "grace"]
    assert store.learners.profiles("bob") == [bob]
    assert store.learners.add_profile("learner", "bob") == bob


def test_the_last_profile_is_remembered_per_identity(store):
    ada = store.learners.add_profile("learner", "ada")
    grace = store.learners.add_profile("grace", "ada")
    bob = store.learners.add_profile("learner", "bob")
    store.learners.use_profile(grace)
    store.learners.use_profile(bob)
    assert store.learners.last_profile("ada") == grace and store.learners.last_profile("bob") == bob
    store.learners.use_profile(ada)
    assert store.learners.last_profile("bob") == bob, "one identity's choice never moves another's"
    assert store.learners.last_profile("carol") is None


V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE profiles (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at REAL NOT NULL);
CREATE TABLE attempts (id INTEGER PRIMARY KEY,
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    exercise_id TEXT NOT NULL, code TEXT NOT NULL, solved INTEGER NOT NULL,
    summary TEXT NOT NULL, elapsed REAL NOT NULL, time_spent REAL NOT NULL,
    dataset TEXT NOT NULL, created_at REAL NOT NULL);
INSERT INTO meta VALUES ('schema_version', '1'), ('last_profile', '7');
INSERT INTO profiles VALUES (3, 'learner', 0), (7, 'grace', 0);
INSERT INTO attempts VALUES (1, 7, 'dh', 'dh = 1', 1, 'ok', 0.1, 5, 'default', 0);
"""


def test_a_version_one_database_is_upgraded_and_adopted_by_the_first_browser(tmp_path):
    path = tmp_path / "progress.sqlite3"
    with closing(sqlite3.connect(path)) as db:
        db.executescript(V1)
    store = open_store(f"sqlite:///{path}")
    assert [(p.id, p.name, p.owner) for p in store.learners.profiles()] == [
        (3, "learner", ""),
        (7, "grace", ""),
    ]
    grace, _, made = store.learners.open_profile("ada", "learner", adopt=True)
    assert not made and (grace.id, grace.name, grace.owner) == (7, "grace", "ada")
    assert [a.solved for a in store.work.attempts(grace, "dh")] == [True], "the attempts came along"
    bob = store.learners.open_profile("bob", "learner", adopt=True)
    assert bob.made and [p.owner for p in bob.profiles] == ["bob"], "nothing left to adopt"


def test_an_identity_with_profiles_adopts_nothing(store):
    store.learners.add_profile("old")
    store.learners.add_profile("learner", "ada")
    opened = store.learners.open_profile("ada", "learner", adopt=True)
    assert opened.profile.name == "learner" and not opened.made
    assert [p.owner for p in store.learners.profiles()] == ["", "ada"]


def test_profiles_keep_their_rows_in_other_tables_across_the_upgrade(tmp_path):
    path = tmp_path / "progress.sqlite3"
    with closing(sqlite3.connect(path)) as db:
        db.executescript(V1)
    open_store(f"sqlite:///{path}")
    store = open_store(f"sqlite:///{path}")  # a second start finds nothing to upgrade
    ada = store.learners.add_profile("learner", "ada")
    store.work.record_attempt(ada, Attempt("dh", "dh = 2", False, "no", 0.1, 1.0, "default"))
    assert len(store.work.attempts(ada)) == 1 and len(store.learners.profiles()) == 3


def test_open_profile_makes_one_then_finds_the_last_used(store):
    first = store.learners.open_profile("ada", "learner", adopt=True)
    assert first.made and first.profile.name == "learner" and first.profiles == [first.profile]
    again = store.learners.open_profile("ada", "learner", adopt=True)
    assert not again.made and again.profile == first.profile
    grace = store.learners.add_profile("grace", "ada")
    assert store.learners.open_profile("ada", "learner", adopt=True).profile == first.profile
    store.learners.use_profile(grace)
    opened = store.learners.open_profile("ada", "learner", adopt=True)
    assert opened == (grace, [first.profile, grace], False)
    assert store.learners.open_profile("bob", "learner", adopt=True).profiles != opened.profiles


def test_open_profile_adopts_the_profiles_before_identities_only_if_asked(store):
    old = store.learners.add_profile("old")
    assert store.learners.open_profile("ada", "learner", adopt=False).profile.name == "learner"
    adopted = store.learners.open_profile("bob", "learner", adopt=True)
    assert adopted.profile.id == old.id and not adopted.made
    assert [p.owner for p in store.learners.profiles()] == ["bob", "ada"]


def test_open_profile_adopts_the_last_profile_of_a_version_one_database(tmp_path):
    path = tmp_path / "progress.sqlite3"
    with closing(sqlite3.connect(path)) as db:
        db.executescript(V1)
    opened = open_store(f"sqlite:///{path}").learners.open_profile("ada", "learner", adopt=True)
    assert (opened.profile.id, opened.profile.name, opened.made) == (7, "grace", False)
    assert [p.id for p in opened.profiles] == [3, 7]
