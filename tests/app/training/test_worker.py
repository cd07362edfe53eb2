"""Training on the task queue (the classroom mode): the queue's rows, and real workers
(`python -m app.training`, started here) training queued runs against a real PostgreSQL.

The learner's code runs in the grader's sandbox, a child of the worker; the worker runs as
whoever runs the tests (tests/grader/test_worker_unprivileged.py runs this file again as an
ordinary user when the tests run as root).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

import pytest

from app.storage import open_store
from app.training import tasks
from app.training.queue import Queue
from app.training.wire import report_of, status_of
from grader import EXERCISES_DIR, discover
from grader.feedback import voice
from grader.training import TrainSettings

ROOT = Path(__file__).resolve().parents[3]
QUICK = TrainSettings(steps=2_000, decay_step=1_000, n_hidden=50)
LONG = TrainSettings(steps=1_000_000, decay_step=500_000, n_hidden=50)
STALE = 10.0  # seconds without a worker's heartbeat before its runs count as interrupted
PATIENCE = 600  # seconds before a wait gives up: a hang guard, not a speed bound

pytestmark = pytest.mark.timeout(1200)  # workers start torch and a sandbox, on a busy machine


def _run_async(coroutine):
    """Run a coroutine to its end on an event loop of its own, in a thread of its own: a
    browser test earlier in the same test process (Playwright's sync API) may have left an
    event loop marked running in this one, where asyncio.run refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()  # its exception, if any, here


@pytest.fixture
def queue_url(postgres):
    """Return the URL of a new PostgreSQL database at the code's schema."""
    from app.storage.engine import make_engine
    from app.storage.schema import upgrade

    url = postgres.new_database()
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    return url


@pytest.fixture(scope="module")
def section():
    """Return Exercise 4's backward section made of the reference solutions."""
    from grader.training.section import PARTS, compose

    catalog = discover(EXERCISES_DIR)
    solved = {exercise_id: catalog.get(exercise_id).solution() for exercise_id, _ in PARTS}
    return compose(solved, solved)


class Workers:
    """The worker processes a test starts; each is killed at the end if still there."""

    def __init__(self, url: str, top: Path):
        self.url, self.top, self.started = url, top, []

    def start(self, *options: str) -> subprocess.Popen:
        """Start `python -m app.training` on the test's database."""
        env = {**os.environ, "NINJA_DATABASE_URL": self.url, "NINJA_DATA_DIR": str(self.top)}
        env["NINJA_WORKER_STALE"] = str(STALE)  # as the replicas (the test) read it: one env file
        env.pop("NINJA_MODE", None)
        with (self.top / f"worker-{len(self.started)}.log").open("w") as log:
            worker = subprocess.Popen(
                [sys.executable, "-m", "app.training", *options],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        self.started.append(worker)
        return worker

    def logs(self) -> str:
        """Return every worker's log, for a failing assertion."""
        return "\n".join(p.read_text() for p in sorted(self.top.glob("worker-*.log")))

    def close(self) -> None:
        """Kill every worker started here, and whatever is left in its process group."""
        for worker in self.started:
            with contextlib.suppress(ProcessLookupError):  # its group: a trainer left, too
                os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


@pytest.fixture
def workers(queue_url, tmp_path):
    """Start workers on the test's database; kill what is left at the end."""
    found = Workers(queue_url, tmp_path)
    yield found
    found.close()


def _queue(queue: Queue, who, code: str, settings: TrainSettings) -> int:
    """Queue a run and its job for a profile, as a replica does."""
    run_id = queue.enqueue(who, code, asdict(settings), "default")
    assert run_id is not None
    return run_id


def _until(queue: Queue, run_id: int, wanted, workers: Workers):
    """Read a run until `wanted(run)` holds; return it (fail with the workers' logs if it
    never does)."""
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        run = queue.run(run_id)
        if wanted(run):
            return run
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} stayed {run.state} at step {run.step}\n{workers.logs()}")


async def _taken_by_a_worker(url: str) -> int:
    """Take the next job as a worker does (procrastinate's own calls), then go silent; return
    the worker's id."""
    app = tasks.worker_app(url, lambda context, run_id: None)
    async with app.open_async():
        worker = await app.job_manager.register_worker()
        assert await app.job_manager.fetch_job([tasks.QUEUE], worker) is not None
    return worker


async def _reaped(url: str, stale: float) -> list[int]:
    """Return the jobs a worker's reaper ends (their worker silent for `stale` seconds)."""
    app = tasks.worker_app(url, lambda context, run_id: None)
    async with app.open_async():
        return await tasks.reap(app, stale)


def test_one_run_per_learner_and_places_in_the_queue(queue_url):
    store = open_store(queue_url)
    queue = Queue(store, STALE)
    ada, bob = store.learners.add_profile("ada", "a"), store.learners.add_profile("bob", "b")
    first = queue.enqueue(ada, "code", asdict(QUICK), "default")
    assert queue.enqueue(ada, "code", asdict(QUICK), "default") is None
    second = queue.enqueue(bob, "code", asdict(QUICK), "default")
    places = [queue.position(queue.run(i)) for i in (first, second)]
    assert places == [1, 2] and queue.run(first).state == "queued"
    assert queue.states() == {"queued": 2}  # the metrics' training runs by state
    queue.stop(queue.latest(ada))
    stopped = queue.run(first)
    assert stopped.state == "stopped" and queue.position(stopped) == 0
    assert queue.states() == {"queued": 1, "stopped": 1}
    assert status_of(stopped).message == voice.training_stopped_queued()
    assert queue.position(queue.run(second)) == 1
    again = queue.enqueue(ada, "code", asdict(QUICK), "default")
    assert again is not None and queue.position(queue.run(again)) == 2


def test_a_run_whose_worker_went_silent_reads_interrupted_and_is_reaped(queue_url):
    store = open_store(queue_url)
    ada = store.learners.add_profile("ada", "a")
    run_id = Queue(store, STALE).enqueue(ada, "code", asdict(QUICK), "default")
    _run_async(_taken_by_a_worker(queue_url))
    assert Queue(store, 3600).run(run_id).state == "running"  # its heartbeat is recent
    assert Queue(store, 3600).states() == {"running": 1}
    assert Queue(store, 3600).enqueue(ada, "code", asdict(QUICK), "default") is None
    assert _run_async(_reaped(queue_url, 3600)) == []
    silent = Queue(store, -1)  # any heartbeat is older than a second from now
    run = silent.run(run_id)
    assert run.state == "interrupted" and not run.active
    assert silent.states() == {"interrupted": 1}
    assert status_of(run).message == voice.training_interrupted(0, QUICK.steps)
    assert _run_async(_reaped(queue_url, -1)) == [run.job_id]  # its job ends, failed
    assert Queue(store, 3600).run(run_id).state == "interrupted"
    assert Queue(store, 3600).enqueue(ada, "code", asdict(QUICK), "default") is not None


@pytest.mark.slow  # real workers: torch and a sandbox each
def test_a_worker_trains_a_queued_run_and_records_it(queue_url, workers, section):
    store = open_store(queue_url)
    queue = Queue(store, STALE)
    ada = store.learners.add_profile("ada", "a")
    workers.start()
    run_id = _queue(queue, ada, section, QUICK)
    run = _until(queue, run_id, lambda r: not r.active, workers)
    assert run.state == "finished", workers.logs()
    assert queue.states() == {"finished": 1}
    report = report_of(run.report)
    assert report.steps_done == QUICK.steps and report.evaluation is not None
    assert report.settings == QUICK and run.curve == report.curve
    (saved,) = store.runs.training_runs(ada)
    assert saved.val_loss == report.evaluation.val_loss and saved.code == section


@pytest.mark.slow  # real workers: torch and a sandbox each
def test_progress_streams_and_stop_ends_concurrent_runs(queue_url, workers, section):
    store = open_store(queue_url)
    queue = Queue(store, STALE)
    ada, bob = store.learners.add_profile("ada", "a"), store.learners.add_profile("bob", "b")
    workers.start("--concurrency", "2")
    runs = [_queue(queue, who, section, LONG) for who in (ada, bob)]
    for run_id in runs:  # both train at once, their progress in the database
        run = _until(queue, run_id, lambda r: (r.step > 0 and r.curve) or not r.active, workers)
        assert run.state == "running" and status_of(run).active, workers.logs()
    for run_id in runs:
        queue.stop(queue.run(run_id))  # from any replica: procrastinate's abort
        run = _until(queue, run_id, lambda r: not r.active, workers)
        assert run.state == "stopped", workers.logs()
        assert status_of(run).message == voice.training_stopped(run.step, LONG.steps)
    assert store.runs.training_runs(ada) == []


@pytest.mark.slow  # real workers: torch and a sandbox each
def test_a_killed_worker_leaves_the_run_interrupted_then_it_starts_again(
    queue_url, workers, section
):
    store = open_store(queue_url)
    queue = Queue(store, STALE)
    ada = store.learners.add_profile("ada", "a")
    first = workers.start()
    run_id = _queue(queue, ada, section, LONG)
    run = _until(queue, run_id, lambda r: r.step > 0 or not r.active, workers)
    assert run.state == "running", workers.logs()
    os.kill(first.pid, signal.SIGKILL)  # kill -9 of the worker alone: its trainer follows it
    first.wait()
    run = _until(queue, run_id, lambda r: not r.active, workers)  # its heartbeats stopped
    assert run.state == "interrupted" and run.step > 0
    assert status_of(run).report.message == voice.training_interrupted(run.step, LONG.steps)
    workers.start("--stale", str(STALE))  # the option says the same; its reaper ends the job
    _until(queue, run_id, lambda r: _job_status(queue_url, r.job_id) == "failed", workers)
    again = _queue(queue, ada, section, QUICK)
    run = _until(queue, again, lambda r: not r.active, workers)
    assert run.state == "finished", workers.logs()


def _job_status(url: str, job_id: int) -> str:
    """Return a job's status as procrastinate keeps it."""
    import psycopg

    with psycopg.connect(tasks.conninfo(url)) as db:
        return db.execute(
            "SELECT status FROM procrastinate_jobs WHERE id = %s", (job_id,)
        ).fetchone()[0]
