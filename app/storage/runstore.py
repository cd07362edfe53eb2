"""Finished training runs (Exercise 4) in the progress store: one table and two calls (a part
of the store: app/storage/store.py).

    >>> store.runs.record_run(me, TrainingRun({"steps": 20000}, 2.21, 2.23, ("emma.",), ...))
    >>> store.runs.training_runs(me)[-1].val_loss
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from app.storage.engine import Part

if TYPE_CHECKING:
    from sqlalchemy import Row

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


class Owner(Protocol):
    """Whose run it is: a Profile, or anything with the profile's id (a worker knows only it)."""

    @property
    def id(self) -> int: ...


class FinishedRuns(Part):
    """The store's calls for finished training runs."""

    def record_run(self, profile: Owner, run: TrainingRun) -> None:
        """Record one finished training run."""
        values = {
            "profile_id": profile.id,
            "settings": json.dumps(run.settings),
            "train_loss": run.train_loss,
            "val_loss": run.val_loss,
            "samples": json.dumps(list(run.samples)),
            "steps_per_s": run.steps_per_s,
            "elapsed": run.elapsed,
            "curve": json.dumps(list(run.curve)),
            "dataset": run.dataset,
            "code": run.code,
            "created_at": run.created_at or time.time(),
        }
        names = ", ".join(values)
        with self._db() as db:
            db.execute(
                f"INSERT INTO training_runs ({names}) VALUES (:{names.replace(', ', ', :')})",
                values,
            )

    def training_runs(self, profile: Owner) -> list[TrainingRun]:
        """Return the profile's finished training runs, oldest first."""
        with self._db() as db:
            rows = db.execute(
                f"SELECT {COLUMNS} FROM training_runs WHERE profile_id = :p ORDER BY id",
                {"p": profile.id},
            ).fetchall()
        return [_run(row) for row in rows]


def _run(row: Row) -> TrainingRun:
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
