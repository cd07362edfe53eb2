"""The task queue: procrastinate, its jobs kept in the class's PostgreSQL (docs/classroom.md).

A job of the task TASK on the queue QUEUE carries one argument, the id of a `training_queue` row
(app/storage/queue.py); everything else about the run is in that row. Replicas only defer
jobs (`defer`); a worker registers the task's body and runs jobs (app/worker/__main__.py).

    >>> defer(url, run_id)        # from a replica: the run waits for a worker
"""

from __future__ import annotations

import functools
import os
import threading

TASK, QUEUE = "train", "training"
STALE = 30.0  # seconds without a heartbeat before a running run counts as interrupted
_lock = threading.Lock()


def worker_app(url: str, body):
    """Return a procrastinate App for a worker, with `body(run_id)` as the training task."""
    import procrastinate

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=_conninfo(url)))
    app.task(name=TASK, queue=QUEUE)(body)
    return app


def defer(url: str, run_id: int) -> int:
    """Queue a job for a run (from a replica); return the job's id."""
    with _lock:  # the app is opened once per process, by the first caller
        app = _deferring_app(url)
    return app.configure_task(TASK, queue=QUEUE).defer(run_id=run_id)


@functools.cache
def _deferring_app(url: str):
    """Return an opened App that only defers jobs, one per process and database."""
    import procrastinate

    connector = procrastinate.SyncPsycopgConnector(conninfo=_conninfo(url))
    return procrastinate.App(connector=connector).open()


def _conninfo(url: str) -> str:
    """Return a libpq URI for a database URL (psycopg's own, without SQLAlchemy's driver)."""
    return "postgresql:" + url.partition(":")[2]


def stale_seconds(environ=None) -> float:
    """Return how long a running run may go without a heartbeat before it counts as
    interrupted: NINJA_WORKER_STALE, else STALE seconds."""
    environ = os.environ if environ is None else environ
    return float(environ.get("NINJA_WORKER_STALE", STALE))
