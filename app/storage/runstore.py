"""Finished training runs (Exercise 4) in the progress store: one table and two calls.

Mixed into storage.Store, whose `_db()` gives each call its own connection.

    >>> store.record_run(me, TrainingRun({"steps": 20000}, 2.21, 2.23, ("emma.",), ...))
    >>> store.training_runs(me)[-1].val_loss
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

SCHEMA = """
CREATE TABLE IF NOT EXISTS training_runs (
    id INTEGER PRIMARY KEY,
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    settings TEXT NOT NULL, train_loss REAL, val_loss REAL, samples TEXT NOT NULL,
    steps_per_s REAL NOT NULL, elapsed REAL NOT NULL, curve TEXT NOT NULL,
    dataset TEXT NOT NULL, code TEXT NOT NULL, created_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS training_runs_by_profile ON training_runs (profile_id);
"""
COLUMNS = (
    "settings, train_loss, val_loss, samples, steps_per_s, elapsed, curve, dataset, code,"
    " created_at"
)


@dataclass(frozen=True)
class TrainingRun:
    """One finished training run of a profile: settings, losses, samples and time."""

    settings: dict
    train_loss: float | None
    val_loss: float | None
    samples: tuple[str, ...]
    steps_per_s: float
    elapsed: float
    curve: tuple[float, ...]
    dataset: str
    code: str
    created_at: float = 0.0


class TrainingRuns:
    """The store's calls for finished training runs."""

    def record_run(self, profile, run: TrainingRun) -> None:
        """Record one finished training run."""
        values = (
            profile.id,
            json.dumps(run.settings),
            run.train_loss,
            run.val_loss,
            json.dumps(list(run.samples)),
            run.steps_per_s,
            run.elapsed,
            json.dumps(list(run.curve)),
            run.dataset,
            run.code,
            run.created_at or time.time(),
        )
        with self._db() as db:
            db.execute(
                f"INSERT INTO training_runs (profile_id, {COLUMNS}) VALUES ({', '.join('?' * 11)})",
                values,
            )

    def training_runs(self, profile) -> list[TrainingRun]:
        """Return the profile's finished training runs, oldest first."""
        with self._db() as db:
            rows = db.execute(
                f"SELECT {COLUMNS} FROM training_runs WHERE profile_id = ? ORDER BY id",
                (profile.id,),
            ).fetchall()
        return [_run(row) for row in rows]


def _run(row: tuple) -> TrainingRun:
    """Rebuild a run from its row."""
    settings, train, val, samples, rate, elapsed, curve, dataset, code, at = row
    return TrainingRun(
        json.loads(settings),
        train,
        val,
        tuple(json.loads(samples)),
        rate,
        elapsed,
        tuple(json.loads(curve)),
        dataset,
        code,
        at,
    )
