"""The training worker of the classroom mode: `python -m app.training [--concurrency N]`.

Runs training jobs from the task queue (procrastinate, in the class's PostgreSQL) until stopped
(SIGTERM or SIGINT: the runs going on are stopped and read as interrupted), and ends, now and
then, the jobs of workers that stopped answering (procrastinate's stalled jobs). Beside them, one
at a time, it sends learners' scores to their LMS after each solve (the queue `lti`:
app/classroom/lti/later.py), so a long training run never holds a score back; the tool's LTI
key comes from `NINJA_SECRETS_FILE` (or Streamlit's secrets files). Reads the app's
own settings from the environment (docs/settings.md): NINJA_DATABASE_URL, NINJA_DATA_DIR,
NINJA_EXERCISES_DIR, NINJA_WORKER_CONCURRENCY (runs at once, default 1) and NINJA_WORKER_STALE
(seconds without a heartbeat before a worker's runs count as interrupted, default 30), the last
two unless given as options. It lives in app/, not grader/, because the queue and the store are
the app's (import-linter's layers: grader/ never imports app/).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import socket
import sys

import procrastinate

from app.classroom.lti import keys, later
from app.config import MAX_WORKER_CONCURRENCY, AppConfig, ConfigError, from_env, streamlit_secrets
from app.storage import StorageError, StorageUnavailable, open_store
from app.training.runner import Runner, Trainers
from app.training.tasks import QUEUE, reap, worker_app
from grader import EXERCISES_DIR, discover

log = logging.getLogger("app.training")
GRACE = 5.0  # seconds a stopping worker gives its runs to stop before leaving
HEARTBEATS = 3  # heartbeats a worker sends in `stale` seconds (at most one every 10 s)


def main(argv: list[str] | None = None) -> int:
    """Run the worker; say what is wrong in one line (exit 2) rather than a traceback."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        config = from_env(os.environ)
        args = _parser(config).parse_args(argv)
        store = open_store(config.database_url)
        pusher = _pusher(config)
    except (ConfigError, StorageError, StorageUnavailable) as err:
        print(f"Not starting: {err}", file=sys.stderr)
        return 2
    name = f"{socket.gethostname()}:{os.getpid()}"
    app = worker_app(config.database_url, Runner(store, Trainers(config, store), args.stale).run)
    app.task(name=later.TASK, queue=later.QUEUE)(pusher)
    log.info("worker %s: %d concurrent runs, queue %r", name, args.concurrency, QUEUE)
    asyncio.run(_serve(app, name, args.concurrency, args.stale))
    return 0


async def _serve(app: procrastinate.App, name: str, concurrency: int, stale: float) -> None:
    """Run jobs until stopped, and end the stalled jobs of other workers meanwhile."""
    async with app.open_async():
        reaper = asyncio.create_task(_reap(app, stale))
        pushes = asyncio.create_task(_push(app, name, stale))
        try:
            await app.run_worker_async(
                queues=[QUEUE],
                name=name,
                concurrency=concurrency,
                delete_jobs="successful",
                shutdown_graceful_timeout=GRACE,
                update_heartbeat_interval=min(10.0, stale / HEARTBEATS),
                stalled_worker_timeout=stale,
            )
        finally:
            for task in (reaper, pushes):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task


async def _push(app: procrastinate.App, name: str, stale: float) -> None:
    """Send learners' scores to their LMS, one job at a time, until cancelled (the training
    worker's signal handlers stop both); started again after a fault (the database away)."""
    while True:
        try:
            await app.run_worker_async(
                queues=[later.QUEUE],
                name=f"{name} lti",
                concurrency=1,
                delete_jobs="successful",
                install_signal_handlers=False,
                update_heartbeat_interval=min(10.0, stale / HEARTBEATS),
                stalled_worker_timeout=stale,
            )
        except Exception as err:  # not CancelledError: that one ends the loop
            log.warning("sending scores to the LMS stopped, starting again: %r", err)
        await asyncio.sleep(stale / 2)


def _pusher(config: AppConfig) -> later.Pusher:
    """Return the LTI push job's body: the exercises read once, the tool's key from the
    secrets the worker is given (ConfigError if that file is not TOML)."""
    files = [str(config.secrets_file)] if config.secrets_file else None
    catalog = discover(config.exercises_dir or EXERCISES_DIR)
    return later.Pusher(config.database_url, catalog, keys.tool_key(streamlit_secrets(files)))


async def _reap(app: procrastinate.App, stale: float) -> None:
    """End, now and then, the runs (and the LMS pushes: their lock would hold that learner's
    item's next push back) of workers that stopped answering."""
    while True:
        try:
            if ended := await reap(app, stale):
                log.warning(
                    "run jobs %s ended: their worker sent no heartbeat for %gs", ended, stale
                )
            if ended := await reap(app, stale, later.QUEUE, later.TASK):
                log.warning("LTI push jobs %s ended: their worker stopped answering", ended)
        except Exception as err:  # the database is away for a moment: look again later
            log.warning("reaping stalled runs: %r", err)
        await asyncio.sleep(stale / 2)


def _concurrency(text: str) -> int:
    """Parse --concurrency: 1 to MAX_WORKER_CONCURRENCY."""
    value = int(text)
    if not 1 <= value <= MAX_WORKER_CONCURRENCY:
        raise argparse.ArgumentTypeError(f"must be 1 to {MAX_WORKER_CONCURRENCY}: got {value}")
    return value


def _seconds(text: str) -> float:
    """Parse --stale: a number of seconds above 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds: got {text}")
    return value


def _parser(config: AppConfig) -> argparse.ArgumentParser:
    """Return the parser of the worker's options, their defaults from the settings."""
    parser = argparse.ArgumentParser(
        prog="python -m app.training", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--concurrency",
        type=_concurrency,
        default=config.worker_concurrency,
        help=f"training runs at once (1 to {MAX_WORKER_CONCURRENCY}; default 1)",
    )
    parser.add_argument(
        "--stale",
        type=_seconds,
        default=config.worker_stale,
        help="seconds without a heartbeat before a worker's runs count as interrupted (default 30)",
    )
    return parser


if __name__ == "__main__":
    sys.exit(main())
