"""Training runs on the task queue (the classroom mode): one row per run, from queued to ended.

Mixed into storage.Store. A replica queues a run and reads it back; a worker claims it, streams
its progress into it (each write is the worker's heartbeat and returns the Stop flag) and ends
it. A row still "running" whose heartbeat is older than `stale` seconds belongs to a worker
that died: `reap_runs` marks it "interrupted", and the learner may start again. At most one
queued or running row per profile (a unique index): `queue_run` returns None for a second.

    >>> run_id = store.queue_run(me, code, {"steps": 20000}, "default")
    >>> store.queue_position(run_id), store.latest_run(me).state   # 1, "queued"
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError

ACTIVE = ("queued", "running")
COLUMNS = (
    "id, profile_id, state, settings, code, dataset, step, elapsed, curve, report, stop, worker,"
    " heartbeat, created_at, started_at, ended_at"
)


@dataclass(frozen=True)
class QueuedRun:
    """A training run on the queue, as its row stands."""

    id: int
    profile_id: int
    state: str  # queued, running, finished, stopped, failed or interrupted
    settings: dict
    code: str
    dataset: str
    step: int
    elapsed: float
    curve: tuple[float, ...]
    report: dict | None  # the worker's report, once it ended (app/worker/wire.py)
    stop: bool
    worker: str
    heartbeat: float | None
    created_at: float
    started_at: float | None
    ended_at: float | None

    @property
    def active(self) -> bool:
        """Return whether the run is queued or running."""
        return self.state in ACTIVE


class QueuedRuns:
    """The store's calls for training runs on the queue."""

    def queue_run(self, profile, code: str, settings: dict, dataset: str) -> int | None:
        """Queue a run for the profile; return its id, or None if it has one queued or running."""
        values = {"p": profile.id, "s": json.dumps(settings), "c": code, "d": dataset}
        try:
            with self._db() as db:
                return db.execute(
                    "INSERT INTO training_queue (profile_id, state, settings, code, dataset,"
                    " created_at) VALUES (:p, 'queued', :s, :c, :d, :now) RETURNING id",
                    values | {"now": time.time()},
                ).scalar_one()
        except IntegrityError:
            return None

    def latest_run(self, profile) -> QueuedRun | None:
        """Return the profile's newest run on the queue, whatever its state."""
        return self._one("profile_id = :p ORDER BY id DESC LIMIT 1", {"p": profile.id})

    def queued_run(self, run_id: int) -> QueuedRun | None:
        """Return one run by id."""
        return self._one("id = :i", {"i": run_id})

    def queue_position(self, run_id: int) -> int:
        """Return a queued run's place in the queue (1: next to start), 0 once it left it."""
        with self._db() as db:
            return db.execute(
                "SELECT COUNT(*) FROM training_queue WHERE state = 'queued' AND id <= :i"
                " AND EXISTS (SELECT 1 FROM training_queue WHERE id = :i AND state = 'queued')",
                {"i": run_id},
            ).scalar_one()

    def request_stop(self, profile) -> None:
        """Ask the profile's run to stop: a queued one ends now, a running one at its worker's
        next progress write."""
        with self._db() as db:
            db.execute(
                "UPDATE training_queue SET state = 'stopped', stop = 1, ended_at = :now"
                " WHERE profile_id = :p AND state = 'queued'",
                {"p": profile.id, "now": time.time()},
            )
            db.execute(
                "UPDATE training_queue SET stop = 1 WHERE profile_id = :p AND state = 'running'",
                {"p": profile.id},
            )

    def claim_run(self, run_id: int, worker: str) -> QueuedRun | None:
        """Mark a queued run as running on this worker; None if it is no longer queued."""
        with self._db() as db:
            claimed = db.execute(
                "UPDATE training_queue SET state = 'running', worker = :w, heartbeat = :now,"
                " started_at = :now"
                " WHERE id = :i AND state = 'queued'",
                {"i": run_id, "w": worker, "now": time.time()},
            ).rowcount
        return self.queued_run(run_id) if claimed else None

    def run_progress(self, run_id: int, step: int, elapsed: float, curve) -> bool:
        """Record a running run's progress (the worker's heartbeat); return whether it must
        stop: asked to, or no longer running (reaped as interrupted)."""
        with self._db() as db:
            stop = db.execute(
                "UPDATE training_queue SET step = :s, elapsed = :e, curve = :c, heartbeat = :now"
                " WHERE id = :i AND state = 'running' RETURNING stop",
                {"i": run_id, "s": step, "e": elapsed, "c": json.dumps(list(curve))}
                | {"now": time.time()},
            ).scalar_one_or_none()
        return stop is None or bool(stop)

    def end_run(self, run_id: int, state: str, report: dict) -> bool:
        """Record how a running run ended; False if it was no longer running (reaped)."""
        with self._db() as db:
            return bool(
                db.execute(
                    "UPDATE training_queue SET state = :st, report = :r, step = :s, elapsed = :e,"
                    " curve = :c, ended_at = :now WHERE id = :i AND state = 'running'",
                    {"i": run_id, "st": state, "r": json.dumps(report), "now": time.time()}
                    | {"s": report["steps_done"], "e": report["elapsed"]}
                    | {"c": json.dumps(list(report["curve"]))},
                ).rowcount
            )

    def reap_runs(self, stale: float) -> int:
        """Mark "interrupted" every running run whose heartbeat is older than `stale` seconds;
        return how many."""
        with self._db() as db:
            return db.execute(
                "UPDATE training_queue SET state = 'interrupted', ended_at = :now"
                " WHERE state = 'running' AND heartbeat < :since",
                {"now": time.time(), "since": time.time() - stale},
            ).rowcount

    def _one(self, where: str, params: dict) -> QueuedRun | None:
        """Return the first row matching a WHERE clause, as a QueuedRun."""
        with self._db() as db:
            row = db.execute(f"SELECT {COLUMNS} FROM training_queue WHERE {where}", params).first()
        return None if row is None else _queued(row)


def _queued(row) -> QueuedRun:
    """Rebuild a run from its row, its JSON columns decoded."""
    values = dict(row._mapping)
    values["settings"] = json.loads(values["settings"])
    values["curve"] = tuple(json.loads(values["curve"]))
    values["report"] = json.loads(values["report"]) if values["report"] else None
    values["stop"] = bool(values["stop"])
    return QueuedRun(**values)
