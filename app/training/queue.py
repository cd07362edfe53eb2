"""The classroom's training runs on the task queue: a row per run, and its procrastinate job.

A part of the store (app/storage's `Part`). The job is the run's one state machine: `todo`
while it waits, `doing` on a worker, then ended; Stop is procrastinate's cancel (a waiting
job) or abort (a running one: its worker stops the trainer), and a worker that stopped
answering is found by procrastinate's own heartbeats (its `procrastinate_workers` rows). The
row keeps what the job does not: the run's settings and code, the progress its worker writes
every second, and the report it ends with. A run reads as the report says once there is one,
else as its job stands (tasks.py names the states).

    >>> queue = Queue(store, stale=30.0)
    >>> run_id = queue.enqueue(me, code, {"steps": 20000}, "default")   # row and job, at once
    >>> queue.latest(me).state, queue.position(queue.latest(me))        # "queued", 1

At most `most` queued or running runs per learner (`NINJA_QUOTA_RUNS`, 1 by default): `enqueue`
returns None for one more (the learner's rows are locked meanwhile, so two tabs pressing Start
at once never pass the limit together).
Only PostgreSQL carries the queue (the classroom mode); the local mode trains in its process.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.storage import Db, Part
from app.training import tasks

if TYPE_CHECKING:
    from sqlalchemy import Row

    from app.storage import Profile, Store

LOCK = 7033  # the advisory lock class of "a learner's training runs" (with the profile's id)
# A run's row with its job's status; `stalled` is procrastinate's own rule for a stalled job
# (its get_stalled_jobs): no worker, or a worker silent for `stale` seconds.
READ = """
SELECT q.id, q.profile_id, q.job_id, q.settings, q.code, q.dataset, q.step, q.elapsed, q.curve,
    q.report, q.created_at, j.status AS job,
    (j.worker_id IS NULL OR w.last_heartbeat < NOW() - make_interval(secs => :stale)) AS stalled
FROM training_queue q
LEFT JOIN procrastinate_jobs j ON j.id = q.job_id
LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
"""

# How many runs stand in each combination of what decides a run's state (tasks.state_of).
STATES = """
SELECT CAST(q.report AS json)->>'state' AS ended, j.status AS job,
    (j.worker_id IS NULL OR w.last_heartbeat < NOW() - make_interval(secs => :stale)) AS stalled,
    COUNT(*) AS runs
FROM training_queue q
LEFT JOIN procrastinate_jobs j ON j.id = q.job_id
LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
GROUP BY 1, 2, 3
"""


@dataclass(frozen=True)
class QueuedRun:
    """A run on the queue, as its row and its job stood when read."""

    id: int
    profile_id: int
    job_id: int | None
    state: str  # queued, running, stopped, interrupted (tasks.state_of); or the report's state
    settings: dict
    code: str
    dataset: str
    step: int
    elapsed: float
    curve: tuple[float, ...]
    report: dict | None  # the worker's report, once it ended (app/training/wire.py)
    created_at: float

    @property
    def active(self) -> bool:
        """Return whether the run is waiting for a worker or training on one."""
        return self.state in tasks.ACTIVE


class Queue(Part):
    """The store's calls for training runs on the task queue; a job whose worker has sent no
    heartbeat for `stale` seconds (the `worker_stale` setting) reads as interrupted."""

    def __init__(self, store: Store, stale: float):
        super().__init__(store)
        self.stale = stale

    def enqueue(
        self, profile: Profile, code: str, settings: dict, dataset: str, most: int = 1
    ) -> int | None:
        """Queue a run and its job in one transaction; return the run's id, or None if the
        learner has `most` runs queued or running already."""
        with self._db() as db:
            db.execute("SELECT pg_advisory_xact_lock(:lock, :p)", {"lock": LOCK, "p": profile.id})
            if self._active(db, profile.id, most) >= most:
                return None
            run_id = db.execute(
                "INSERT INTO training_queue (profile_id, settings, code, dataset, created_at)"
                " VALUES (:p, :s, :c, :d, :now) RETURNING id",
                {"p": profile.id, "s": json.dumps(settings), "c": code, "d": dataset}
                | {"now": time.time()},
            ).scalar_one()
            job_id = tasks.defer(db.driver, run_id)
            db.execute(
                "UPDATE training_queue SET job_id = :j WHERE id = :i", {"j": job_id, "i": run_id}
            )
        return run_id

    def latest(self, profile: Profile) -> QueuedRun | None:
        """Return the learner's newest run, read with its job."""
        with self._db() as db:
            return self._one(db, "q.profile_id = :p ORDER BY q.id DESC LIMIT 1", {"p": profile.id})

    def run(self, run_id: int) -> QueuedRun | None:
        """Return one run by id, read with its job."""
        with self._db() as db:
            return self._one(db, "q.id = :i", {"i": run_id})

    def position(self, run: QueuedRun) -> int:
        """Return a waiting run's place in the queue (1: next to start), 0 for any other."""
        if run.state != tasks.QUEUED:
            return 0
        with self._db() as db:
            return db.execute(
                "SELECT COUNT(*) FROM procrastinate_jobs WHERE queue_name = :q"
                " AND status = 'todo' AND id <= :j",
                {"q": tasks.QUEUE, "j": run.job_id},
            ).scalar_one()

    def stop(self, run: QueuedRun) -> None:
        """Stop a run: its job is cancelled if it waits, else its worker is asked to abort it
        (and stops the trainer within a second or two)."""
        if run.job_id is not None:
            with self._db() as db:
                tasks.cancel(db.driver, run.job_id)

    def progress(self, run_id: int, step: int, elapsed: float, curve: tuple[float, ...]) -> None:
        """Record a running run's progress (its worker, every second)."""
        with self._db() as db:
            db.execute(
                "UPDATE training_queue SET step = :s, elapsed = :e, curve = :c"
                " WHERE id = :i AND report IS NULL",
                {"i": run_id, "s": step, "e": elapsed, "c": json.dumps(list(curve))},
            )

    def end(self, run_id: int, report: dict) -> bool:
        """Record the report a run ended with; False if it had one already."""
        with self._db() as db:
            return bool(
                db.execute(
                    "UPDATE training_queue SET report = :r, step = :s, elapsed = :e, curve = :c"
                    " WHERE id = :i AND report IS NULL",
                    {"i": run_id, "r": json.dumps(report), "s": report["steps_done"]}
                    | {"e": report["elapsed"], "c": json.dumps(list(report["curve"]))},
                ).rowcount
            )

    def states(self) -> dict[str, int]:
        """Return how many runs of the whole class are in each state (the metrics)."""
        with self._db() as db:
            rows = db.execute(STATES, {"stale": self.stale}).fetchall()
        found: dict[str, int] = {}
        for ended, job, stalled, runs in rows:
            state = tasks.state_of({"state": ended} if ended else None, job, bool(stalled))
            found[state] = found.get(state, 0) + runs
        return found

    def _active(self, db: Db, profile_id: int, most: int) -> int:
        """Return how many of the learner's runs are queued or running (counting to `most`)."""
        rows = db.execute(
            f"{READ} WHERE q.profile_id = :p AND q.report IS NULL ORDER BY q.id DESC LIMIT :n",
            {"p": profile_id, "n": most + 16, "stale": self.stale},
        ).fetchall()
        return sum(_queued(r).active for r in rows)

    def _one(self, db: Db, where: str, params: dict) -> QueuedRun | None:
        """Return the first run matching a WHERE clause, with its job's state."""
        row = db.execute(f"{READ} WHERE {where}", {"stale": self.stale} | params).first()
        return None if row is None else _queued(row)


def _queued(row: Row) -> QueuedRun:
    """Rebuild a run from its row, its JSON columns decoded and its state decided."""
    values = dict(row._mapping)
    job, stalled = values.pop("job"), values.pop("stalled")
    values["settings"] = json.loads(values["settings"])
    values["curve"] = tuple(json.loads(values["curve"]))
    values["report"] = json.loads(values["report"]) if values["report"] else None
    values["state"] = tasks.state_of(values["report"], job, bool(stalled))
    return QueuedRun(**values)
