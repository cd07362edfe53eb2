"""Training on the task queue (the classroom mode): the queue's rows, and real workers
(`python -m app.worker`, started here) training queued runs against a real PostgreSQL.

The learner's code runs in the grader's sandbox, a child of the worker; the worker runs as
whoever runs the tests (tests/grader/test_worker_unprivileged.py runs this file again as an
ordinary user when the tests run as root).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from app.storage import open_store
from app.worker import defer, report_of, status_of
from grader import EXERCISES_DIR, discover
from grader.feedback import voice
from grader.training import TrainSettings

ROOT = Path(__file__).resolve().parents[2]
QUICK = TrainSettings(steps=2_000, decay_step=1_000, n_hidden=50)
LONG = TrainSettings(steps=1_000_000, decay_step=500_000, n_hidden=50)
STALE = "10"  # seconds without a heartbeat (one a second) before a run counts as interrupted
PATIENCE = 600  # seconds before a wait gives up: a hang guard, not a speed bound

pytestmark = pytest.mark.timeout(1200)  # workers start torch and a sandbox, on a busy machine


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
        """Start `python -m app.worker` on the test's database."""
        env = {**os.environ, "NINJA_DATABASE_URL": self.url, "NINJA_DATA_DIR": str(self.top)}
        env.pop("NINJA_MODE", None)
        with (self.top / f"worker-{len(self.started)}.log").open("w") as log:
            worker = subprocess.Popen(
                [sys.executable, "-m", "app.worker", *options],
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


def _queue(store, url: str, who, code: str, settings: TrainSettings) -> int:
    """Queue a run for a profile as a replica does, and defer its job."""
    run_id = store.queue_run(who, code, asdict(settings), "default")
    assert run_id is not None
    defer(url, run_id)
    return run_id


def _until(store, run_id: int, wanted, workers: Workers):
    """Read a run's row until `wanted(run)` holds; return it (fail with the workers' logs if
    it never does, or a worker exits on its own)."""
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        run = store.queued_run(run_id)
        if wanted(run):
            return run
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} stayed {run.state} at step {run.step}\n{workers.logs()}")


def test_one_run_per_learner_and_places_in_the_queue(queue_url):
    store = open_store(queue_url)
    ada, bob = store.add_profile("ada", "a"), store.add_profile("bob", "b")
    first = store.queue_run(ada, "code", asdict(QUICK), "default")
    assert store.queue_run(ada, "code", asdict(QUICK), "default") is None
    second = store.queue_run(bob, "code", asdict(QUICK), "default")
    assert (store.queue_position(first), store.queue_position(second)) == (1, 2)
    store.request_stop(ada)
    stopped = store.queued_run(first)
    assert stopped.state == "stopped" and store.queue_position(first) == 0
    assert status_of(stopped).message == voice.training_stopped_queued()
    assert store.queue_position(second) == 1
    again = store.queue_run(ada, "code", asdict(QUICK), "default")
    assert again is not None and store.queue_position(again) == 2


def test_a_running_run_without_a_heartbeat_is_reaped_as_interrupted(queue_url):
    store = open_store(queue_url)
    ada = store.add_profile("ada", "a")
    run_id = store.queue_run(ada, "code", asdict(QUICK), "default")
    assert store.claim_run(run_id, "gone") is not None
    assert store.claim_run(run_id, "another") is None  # claimed once
    assert store.reap_runs(3600) == 0  # its heartbeat is recent
    assert store.reap_runs(-1) == 1  # any heartbeat is older than a second from now
    run = store.queued_run(run_id)
    assert run.state == "interrupted"
    assert status_of(run).message == voice.training_interrupted(0, QUICK.steps)
    assert store.run_progress(run_id, 5, 0.1, ()) is True  # its worker, if alive, must stop


def test_a_worker_trains_a_queued_run_and_records_it(queue_url, workers, section):
    store = open_store(queue_url)
    ada = store.add_profile("ada", "a")
    workers.start()
    run_id = _queue(store, queue_url, ada, section, QUICK)
    run = _until(store, run_id, lambda r: not r.active, workers)
    assert run.state == "finished", workers.logs()
    report = report_of(run.report)
    assert report.steps_done == QUICK.steps and report.evaluation is not None
    assert report.settings == QUICK and run.curve == report.curve
    (saved,) = store.training_runs(ada)
    assert saved.val_loss == report.evaluation.val_loss and saved.code == section


def test_progress_streams_and_stop_ends_concurrent_runs(queue_url, workers, section):
    store = open_store(queue_url)
    ada, bob = store.add_profile("ada", "a"), store.add_profile("bob", "b")
    workers.start("--concurrency", "2")
    runs = [_queue(store, queue_url, who, section, LONG) for who in (ada, bob)]
    for run_id in runs:  # both train at once, their progress in the database
        run = _until(store, run_id, lambda r: (r.step > 0 and r.curve) or not r.active, workers)
        assert run.state == "running" and status_of(run).active, workers.logs()
    for who, run_id in zip((ada, bob), runs, strict=True):
        store.request_stop(who)
        run = _until(store, run_id, lambda r: not r.active, workers)
        assert run.state == "stopped", workers.logs()
        assert status_of(run).message == voice.training_stopped(run.step, LONG.steps)
    assert store.training_runs(ada) == []


def test_a_killed_worker_leaves_the_run_interrupted_then_it_starts_again(
    queue_url, workers, section
):
    store = open_store(queue_url)
    ada = store.add_profile("ada", "a")
    first = workers.start("--stale", STALE)
    run_id = _queue(store, queue_url, ada, section, LONG)
    run = _until(store, run_id, lambda r: r.step > 0 or not r.active, workers)
    assert run.state == "running", workers.logs()
    os.kill(first.pid, signal.SIGKILL)  # kill -9 of the worker alone: its trainer follows it
    first.wait()
    workers.start("--stale", STALE)  # its reaper finds the silent run
    run = _until(store, run_id, lambda r: not r.active, workers)
    assert run.state == "interrupted" and run.step > 0
    assert status_of(run).report.message == voice.training_interrupted(run.step, LONG.steps)
    again = _queue(store, queue_url, ada, section, QUICK)
    run = _until(store, again, lambda r: not r.active, workers)
    assert run.state == "finished", workers.logs()
