"""The task queue: procrastinate, its jobs kept in the class's PostgreSQL (docs/classroom.md).

A job of the task TASK on the queue QUEUE carries one argument, the id of a `training_queue`
row (queue.py), whose settings, code, progress and report are the run's; the job's status is
the run's state. A replica defers a job inside its own transaction (`defer`), and stops one
(`cancel`); a worker (__main__.py) runs jobs, and ends those whose worker died (`reap`, from
procrastinate's stalled-job detection).

    >>> job_id = defer(db.driver, run_id)        # in the transaction that wrote the row
    >>> state_of(None, "todo", stalled=False)    # "queued"

procrastinate is imported on first use: a page of the local mode never needs it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import procrastinate

TASK, QUEUE = "train", "training"
QUEUED, RUNNING, STOPPED, INTERRUPTED = "queued", "running", "stopped", "interrupted"
ACTIVE = (QUEUED, RUNNING)
log = logging.getLogger("app.training")


def state_of(report: dict | None, job: str | None, stalled: bool) -> str:
    """Return a run's state: its report's once it has one; else its job's (waiting: queued;
    taken by a worker that still beats: running; cancelled while waiting: stopped); anything
    else (its worker died, or its job is gone) is interrupted."""
    if report is not None:
        return report["state"]
    if job == "todo":
        return QUEUED
    if job == "doing" and not stalled:
        return RUNNING
    return STOPPED if job == "cancelled" else INTERRUPTED


def worker_app(url: str, body: Callable[..., None]) -> procrastinate.App:
    """Return a procrastinate App for a worker, with `body(context, run_id)` as the task."""
    import procrastinate

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo(url)))
    app.task(name=TASK, queue=QUEUE, pass_context=True)(body)
    return app


def defer(connection: object, run_id: int) -> int:
    """Queue a job for a run on a driver connection whose transaction wrote the run's row, so
    that a worker sees both or neither; return the job's id."""
    task = _deferrer().configure_task(TASK, queue=QUEUE, connection=connection)
    return task.defer(run_id=run_id)


def cancel(connection: object, job_id: int) -> None:
    """Stop a job: a waiting one is cancelled, a running one is asked to abort."""
    _deferrer().job_manager.cancel_job_by_id(job_id, abort=True, connection=connection)


@functools.cache
def _deferrer() -> procrastinate.App:
    """Return the App that writes jobs on a connection it is given (it opens none itself)."""
    import procrastinate

    return procrastinate.App(connector=procrastinate.SyncPsycopgConnector())


async def reap(
    app: procrastinate.App, stale: float, queue: str = QUEUE, task: str = TASK
) -> list[int]:
    """End as failed every running job (of a task on a queue: a training run by default)
    whose worker has sent no heartbeat for `stale` seconds (procrastinate's stalled jobs);
    return their ids."""
    from procrastinate.exceptions import ConnectorException
    from procrastinate.jobs import Status

    ended = []
    jobs = await app.job_manager.get_stalled_jobs(
        queue=queue, task_name=task, seconds_since_heartbeat=stale
    )
    for job in jobs:
        try:
            await app.job_manager.finish_job(job, Status.FAILED, delete_job=False)
        except ConnectorException as err:  # another worker's reaper ended it first
            log.info("stalled job %s: %s", job.id, err)
            continue
        ended.append(job.id)
    return ended


def conninfo(url: str) -> str:
    """Return a libpq URI for a database URL (psycopg's own, without SQLAlchemy's driver)."""
    return "postgresql:" + url.partition(":")[2]
