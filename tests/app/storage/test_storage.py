"""The progress store: profiles, drafts, attempts, events, totals and reset, on SQLite and on
PostgreSQL (tests/conftest.py store_url), and the URLs it accepts."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect

from app.storage import Attempt, SchemaBehind, StorageError, open_store
from app.storage.engine import make_engine, transaction
from app.storage.schema import current, head, upgrade
from app.storage.store import SCHEMA_VERSION

TABLES = {"meta", "profiles", "learners", "settings", "drafts", "attempts", "submissions", "events"}


@pytest.fixture
def store(store_url):
    """Return an empty store, on each engine in turn."""
    return open_store(store_url)


def _attempt(exercise: str, solved: bool, spent: float = 10.0) -> Attempt:
    return Attempt(exercise, "code", solved, "summary", 0.02, spent, "default")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://x/y", "must look like `sqlite:///<path>` or `postgresql://"),
        ("x.db", "must look like `sqlite:///<path>` or `postgresql://"),
        ("sqlite:///", "must look like `sqlite:///<path>`"),
        ("sqlite:///:memory:", "must look like `sqlite:///<path>`"),
        ("postgresql://db.uni.edu", "must name one database"),
        ("postgresql://ninja:secret@db:port/x", "has a bad port: 'postgresql://ninja:***@db"),
    ],
)
def test_unusable_urls_are_refused_saying_why(url, message):
    with pytest.raises(StorageError, match="The database URL") as refused:
        open_store(url)
    assert message in str(refused.value) and "secret" not in str(refused.value)


def test_the_schema_is_created_at_the_codes_head_with_its_version(store_url, store):
    engine = make_engine(store_url)
    assert set(inspect(engine).get_table_names()) >= TABLES
    assert current(engine) == head()
    with transaction(engine) as db:
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").scalar_one()
    assert version == str(SCHEMA_VERSION)


def test_a_server_database_behind_the_code_is_refused_naming_the_command(postgres):
    url = postgres.new_database()
    with pytest.raises(SchemaBehind, match="at schema none, the code needs"):
        open_store(url)
    upgrade(make_engine(url), "0001")
    with pytest.raises(SchemaBehind, match="run `python -m app.storage upgrade`"):
        open_store(url)
    upgrade(make_engine(url))
    assert open_store(url).learners.profiles() == []


def test_profiles_are_created_once_and_remembered(store):
    ada = store.learners.add_profile("  ada   lovelace ")
    assert ada.name == "ada lovelace"
    assert store.learners.add_profile("ada lovelace") == ada
    assert store.learners.last_profile() is None
    store.learners.use_profile(ada)
    assert store.learners.last_profile() == ada


@pytest.mark.parametrize("name", ["", "   ", "x" * 41])
def test_a_profile_name_needs_one_to_forty_characters(store, name):
    with pytest.raises(StorageError, match="1 to 40 characters"):
        store.learners.add_profile(name)


def test_drafts_and_settings_belong_to_one_profile(store):
    ada, bob = store.learners.add_profile("ada"), store.learners.add_profile("bob")
    store.work.save_draft(ada, "dh", "dh = 1")
    store.work.save_draft(ada, "dh", "dh = 2")
    store.learners.set_setting(ada, "dataset", "names")
    assert store.work.draft(ada, "dh") == "dh = 2" and store.work.draft(bob, "dh") is None
    assert (
        store.learners.setting(ada, "dataset") == "names"
        and store.learners.setting(bob, "dataset", "d") == "d"
    )


def test_progress_totals_attempts_time_hints_and_reveals(store):
    ada = store.learners.add_profile("ada")
    store.work.record_attempt(ada, _attempt("dh", False, 60))
    store.work.record_attempt(ada, _attempt("dh", True, 30))
    store.work.record_event(ada, "dh", "hint")
    store.work.record_event(ada, "dh", "reveal")
    store.work.save_draft(ada, "dW2", "dW2 = ...")
    totals = {p.exercise_id: p for p in store.work.progress(ada)}
    dh = totals["dh"]
    assert (dh.attempts, dh.solved, dh.time_spent, dh.hints, dh.revealed) == (2, True, 90, 1, True)
    assert totals["dW2"].attempts == 0 and totals["dW2"].last_at > 0
    assert store.work.statuses(ada) == {"dh": "solved"}
    assert [a.solved for a in store.work.attempts(ada, "dh")] == [False, True]


def test_reset_keeps_the_profile_and_its_settings(store):
    ada = store.learners.add_profile("ada")
    store.work.record_attempt(ada, _attempt("dh", True))
    store.work.save_draft(ada, "dh", "x")
    store.learners.set_setting(ada, "dataset", "names")
    store.work.reset(ada)
    assert store.work.progress(ada) == [] and store.work.draft(ada, "dh") is None
    assert store.learners.setting(ada, "dataset") == "names" and store.learners.profiles() == [ada]


def test_a_second_store_on_the_same_database_sees_the_same_progress(store_url, store):
    ada = store.learners.add_profile("ada")
    store.work.record_attempt(ada, _attempt("dh", True))
    again = open_store(store_url)
    assert again.work.statuses(ada) == {"dh": "solved"}


def test_the_check_command_refuses_a_database_behind_then_upgrade_brings_it(postgres, capsys):
    from app.storage.__main__ import main

    url = postgres.new_database()
    assert main(["--url", url, "check"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("Not starting: The progress database is at schema none")
    assert line.endswith("run `python -m app.storage upgrade` (docs/classroom.md).")
    assert main(["--url", url, "upgrade"]) == 0
    assert f"schema none -> {head()}" in capsys.readouterr().out
    assert main(["--url", url, "check"]) == 0


def test_the_upgrade_command_makes_a_new_local_file_private(tmp_path):
    from app.storage.__main__ import main

    path = tmp_path / "a folder" / "progress.sqlite3"
    assert main(["--url", f"sqlite:///{path}", "upgrade"]) == 0
    assert path.stat().st_mode & 0o777 == 0o600 and current(make_engine(f"sqlite:///{path}"))
