"""A training burst on the classroom's task queue: N learners start a run at once, one worker.

    python bench/bench_queue.py [--url postgresql://...] [--runs 20] [--steps 2000]

Without --url it starts a PostgreSQL of its own (tests/postgres.py, Debian's `postgresql`). It
queues --runs runs of the reference section (one per learner) at once, starts one worker
(`python -m app.training`), waits until every run has ended, and prints the queue wait (queued ->
a worker took it) and the completion (queued -> ended) as p50 / p95 / max: a run's queued time is
its row's, and it is seen running and ended by reading the runs every 0.2 s (a run's state is
its procrastinate job's, whose own times go with it). Figures depend on the machine and on its
load: quote them with both.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tests_module(relative: str):
    """Return a helper of the tests (tests/<relative>), imported by its path: the tests are not
    installed, and nothing is added to the import path."""
    path = ROOT / "tests" / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = sys.modules[path.stem] = importlib.util.module_from_spec(spec)  # as importlib's recipe
    spec.loader.exec_module(module)
    return module


def main() -> int:
    args = _parser().parse_args()
    top = Path(tempfile.mkdtemp(prefix="bench-queue-"))
    server = None
    if args.url is None:
        postgres = _tests_module("postgres.py")  # a server of its own, as the tests start
        server = postgres.Server.start(Path(tempfile.mkdtemp(prefix="bpn-pg-")))
    try:
        url = args.url or server.new_database()
        return burst(url, top, args)
    finally:
        if server is not None:
            server.stop()
            shutil.rmtree(server.top, ignore_errors=True)
        shutil.rmtree(top, ignore_errors=True)


def burst(url: str, top: Path, args) -> int:
    """Queue the runs, start the worker, wait for every run; print the figures."""
    from app.storage import open_store
    from app.storage.engine import make_engine
    from app.storage.schema import upgrade
    from app.training.queue import Queue
    from grader.training import TrainSettings

    upgrade(make_engine(url))
    store = open_store(url)
    queue = Queue(store, stale=30.0)
    settings = asdict(TrainSettings(steps=args.steps, decay_step=args.steps // 2))
    code = _section()
    ids = []
    for i in range(args.runs):
        learner = store.learners.add_profile(f"learner{i}", f"bench {i}")
        ids.append(queue.enqueue(learner, code, settings, "default"))
    env = {**os.environ, "NINJA_DATABASE_URL": url, "NINJA_DATA_DIR": str(top / "worker")}
    command = [sys.executable, "-m", "app.training", "--concurrency", str(args.concurrency)]
    with (top / "worker.log").open("w") as log:
        worker = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)  # fmt: skip
    try:
        runs, started, ended = _watched(queue, ids)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait()
    _report(runs, started, ended, args)
    return 0 if all(r.state == "finished" for r in runs) else 1


def _section() -> str:
    """Return Exercise 4's section made of the reference solutions."""
    from grader import EXERCISES_DIR, discover
    from grader.training.section import PARTS, compose

    catalog = discover(EXERCISES_DIR)
    solved = {i: catalog.get(i).solution() for i, _ in PARTS}
    return compose(solved, solved)


def _watched(queue, ids: list[int]) -> tuple[list, dict[int, float], dict[int, float]]:
    """Read the runs every 0.2 s until every one has ended; return them, and when each was
    first seen running and ended."""
    started: dict[int, float] = {}
    ended: dict[int, float] = {}
    while True:
        runs = [queue.run(i) for i in ids]
        now = time.time()
        for run in runs:
            if run.state != "queued":
                started.setdefault(run.id, now)
            if not run.active:
                ended.setdefault(run.id, now)
        if len(ended) == len(ids):
            return runs, started, ended
        time.sleep(0.2)


def _report(runs: list, started: dict[int, float], ended: dict[int, float], args) -> None:
    """Print the burst's queue wait and completion, p50 / p95 / max."""
    waits = [started[r.id] - r.created_at for r in runs]
    done = [ended[r.id] - r.created_at for r in runs]
    states = {s: sum(r.state == s for r in runs) for s in {r.state for r in runs}}
    print(f"burst: {args.runs} runs of {args.steps:,} steps, 1 worker, concurrency"
          f" {args.concurrency}; cpus {os.cpu_count()}; ended {states}")  # fmt: skip
    for name, values in (("queue wait", waits), ("completion", done)):
        print(f"{name:11} p50 {_pct(values, 50):7.1f} s  p95 {_pct(values, 95):7.1f} s"
              f"  max {max(values):7.1f} s")  # fmt: skip


def _pct(values: list[float], pct: int) -> float:
    """Return a percentile (inclusive method) of the values."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", help="a PostgreSQL database (default: start one)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=1)
    return parser


if __name__ == "__main__":
    sys.exit(main())
