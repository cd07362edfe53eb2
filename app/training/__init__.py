"""The classroom mode's training on a task queue: replicas queue runs, workers train them.

    >>> from app.worker import defer, status_of
    >>> run_id = store.queue_run(me, code, asdict(settings), "default"); defer(url, run_id)
    >>> status_of(store.latest_run(me))     # the TrainingStatus the page draws, from the row

tasks.py is procrastinate (the queue, in the class's PostgreSQL); runner.py the job's body in
the worker (`python -m app.worker`, __main__.py): it trains in the grader's sandbox and streams
progress into the row; wire.py turns a row into what the training page draws. Light to import:
procrastinate and torch load on first use.
"""

from app.worker.tasks import QUEUE, TASK, defer, stale_seconds
from app.worker.wire import INTERRUPTED, QUEUED, record_of, report_fields, report_of, status_of

__all__ = [
    "INTERRUPTED",
    "QUEUE",
    "QUEUED",
    "TASK",
    "defer",
    "record_of",
    "report_fields",
    "report_of",
    "stale_seconds",
    "status_of",
]
