"""Finished training runs in the progress store: recorded per profile, read back, reset."""

from __future__ import annotations

import pytest

from app.storage import TrainingRun, open_store


@pytest.fixture
def store(store_url):
    """Return an empty store, on SQLite then on PostgreSQL (tests/conftest.py store_url)."""
    return open_store(store_url)


def _run(val: float | None = 2.11, **change) -> TrainingRun:
    fields = dict(
        settings={"steps": 200_000, "n_hidden": 200},
        train_loss=2.07 if val is not None else None,
        val_loss=val,
        samples=("carmah.", "amille."),
        steps_per_s=1500.0,
        elapsed=133.0,
        curve=(0.5, 0.4),
        dataset="names",
        code="dC = ...",
        created_at=1.0,
    )
    return TrainingRun(**fields | change)


def test_a_run_is_read_back_as_recorded(store):
    me = store.learners.add_profile("ada")
    store.runs.record_run(me, _run())
    assert store.runs.training_runs(me) == [_run()]


def test_runs_belong_to_one_profile_and_come_oldest_first(store):
    ada, bob = store.learners.add_profile("ada"), store.learners.add_profile("bob")
    store.runs.record_run(ada, _run(2.2, created_at=1.0))
    store.runs.record_run(ada, _run(2.1, created_at=2.0))
    store.runs.record_run(bob, _run(2.5))
    assert [r.val_loss for r in store.runs.training_runs(ada)] == [2.2, 2.1]
    assert [r.val_loss for r in store.runs.training_runs(bob)] == [2.5]


def test_a_run_without_an_evaluation_keeps_no_losses(store):
    me = store.learners.add_profile("ada")
    store.runs.record_run(me, _run(None, created_at=0.0))
    run = store.runs.training_runs(me)[0]
    assert run.train_loss is None and run.val_loss is None and run.created_at > 0


def test_reset_deletes_the_runs_too(store):
    me = store.learners.add_profile("ada")
    store.runs.record_run(me, _run())
    store.work.reset(me)
    assert store.runs.training_runs(me) == []


def test_an_older_database_gets_the_table(tmp_path):
    path = tmp_path / "old.sqlite3"
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE profiles (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
                   " created_at REAL NOT NULL)")  # fmt: skip
    store = open_store(f"sqlite:///{path}")
    me = store.learners.add_profile("ada")
    store.runs.record_run(me, _run())
    assert len(store.runs.training_runs(me)) == 1
