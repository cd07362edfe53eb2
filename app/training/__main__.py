"""The training worker of the classroom mode: `python -m app.worker [--concurrency N]`.

Runs training jobs from the task queue (procrastinate, in the class's PostgreSQL) until stopped
(SIGTERM or SIGINT: the runs going on end as interrupted). Reads the app's own settings from the
environment: NINJA_DATABASE_URL, NINJA_DATA_DIR, NINJA_EXERCISES_DIR (docs/settings.md); and
NINJA_WORKER_CONCURRENCY (default 1) and NINJA_WORKER_STALE (seconds without a heartbeat before
a run is marked interrupted, default 30) unless given as options. It lives in app/, not grader/,
because the queue and the store are the app's (import-linter's layers: grader/ never imports app/).
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
import threading

from app.config import ConfigError, from_env
from app.storage import StorageError, StorageUnavailable, open_store
from app.worker.runner import Runner, Trainers
from app.worker.tasks import QUEUE, stale_seconds, worker_app

log = logging.getLogger("app.worker")
GRACE = 5.0  # seconds a stopping worker gives its runs before leaving them (interrupted)
MAX_CONCURRENCY = 2  # training runs per worker process (the grader's own cap); run more workers


def main(argv: list[str] | None = None) -> int:
    """Run the worker; say what is wrong in one line (exit 2) rather than a traceback."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        config = from_env(os.environ)
        store = open_store(config.database_url)
    except (ConfigError, StorageError, StorageUnavailable) as err:
        print(f"Not starting: {err}", file=sys.stderr)
        return 2
    name = f"{socket.gethostname()}:{os.getpid()}"
    trainers = Trainers(config, store)
    runner = Runner(store, trainers, name)
    stopped = threading.Event()
    reaper = threading.Thread(target=_reap, args=(store, args.stale, stopped), daemon=True)
    reaper.start()
    log.info("worker %s: %d concurrent runs, queue %r", name, args.concurrency, QUEUE)
    try:
        worker_app(config.database_url, runner.run).run_worker(
            queues=[QUEUE],
            name=name,
            concurrency=args.concurrency,
            delete_jobs="successful",
            shutdown_graceful_timeout=GRACE,
        )
    finally:
        stopped.set()
    return 0


def _reap(store, stale: float, stopped: threading.Event) -> None:
    """Mark interrupted, now and then, the runs of workers that stopped answering."""
    while not stopped.is_set():
        try:
            if count := store.reap_runs(stale):
                log.warning("%d run(s) marked interrupted: no heartbeat for %gs", count, stale)
        except StorageUnavailable as err:
            log.warning("reaping stalled runs: %s", err)
        stopped.wait(stale / 2)


def _concurrency(text: str) -> int:
    """Parse --concurrency: 1 to MAX_CONCURRENCY."""
    value = int(text)
    if not 1 <= value <= MAX_CONCURRENCY:
        raise argparse.ArgumentTypeError(f"must be 1 to {MAX_CONCURRENCY}: got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    """Return the parser of the worker's options."""
    parser = argparse.ArgumentParser(
        prog="python -m app.worker", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--concurrency",
        type=_concurrency,
        default=os.environ.get("NINJA_WORKER_CONCURRENCY", "1"),
        help=f"training runs at once (1 to {MAX_CONCURRENCY}; default 1)",
    )
    parser.add_argument(
        "--stale",
        type=float,
        default=stale_seconds(),
        help="seconds without a heartbeat before a run is marked interrupted (default 30)",
    )
    return parser


if __name__ == "__main__":
    sys.exit(main())
