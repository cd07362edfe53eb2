"""Backup and restore of a class: `python -m app.storage backup|restore` on a filled database.

    python bench/bench_backup.py [--learners 300] [--attempts 40]

Starts a PostgreSQL of its own (tests/postgres.py, Debian's `postgresql`), fills a database
through the store with --learners learners, each with a draft of all 26 Exercise 1 answers,
--attempts attempts and one training run, then times the command line's backup, a restore into
an empty database, and the same on a SQLite file; prints the rows, the backup's size and the
seconds. Figures depend on the machine and on its load: quote them with both.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

from app.storage import Attempt, Facts, TrainingRun, open_store
from app.storage.__main__ import main as storage

ROOT = Path(__file__).resolve().parents[1]

EXERCISES = ("dlogprobs", "dprobs", "dcounts_sum_inv", "dcounts_sum", "dcounts", "dnorm_logits")
EXERCISES += ("dlogit_maxes", "dlogits", "dh", "dW2", "db2", "dhpreact", "dbngain", "dbnbias")
EXERCISES += ("dbnraw", "dbnvar_inv", "dbnvar", "dbndiff2", "dbndiff", "dbnmeani", "dhprebn")
EXERCISES += ("dembcat", "dW1", "db1", "demb", "dC")
CODE = "dlogits = F.softmax(logits, 1)\ndlogits[range(n), Yb] -= 1\ndlogits /= n\n" * 3


def fill(url: str, learners: int, attempts: int) -> None:
    """Give each learner a profile, a draft per exercise, attempts and one run."""
    store = open_store(url)
    facts = Facts(True, "", "transposed", "not_solved")
    run = TrainingRun({"steps": 200000}, 2.07, 2.11, ("emma.",) * 20, 540.0, 1.0, (3.3,) * 200,
                      "d", "x")  # fmt: skip
    for i in range(learners):
        me = store.add_profile(f"learner {i}", f"https://id.uni.edu {i}")
        for exercise in EXERCISES:
            store.save_draft(me, exercise, CODE)
        for j in range(attempts):
            exercise = EXERCISES[j % len(EXERCISES)]
            store.record_attempt(me, Attempt(exercise, CODE, False, "`x` is off.", 0, 1, "d",
                                             facts=facts))  # fmt: skip
        store.record_run(me, run)


def timed(*argv: str) -> float:
    """Run `python -m app.storage ARGV` here; return its seconds (it must succeed)."""
    started = time.perf_counter()
    assert storage(list(argv)) == 0, argv
    return time.perf_counter() - started


def measure(name: str, url: str, empty: str, folder: Path) -> None:
    backup = folder / f"{name}.backup"
    seconds = timed("--url", url, "backup", str(backup))
    restore = timed("--url", empty, "restore", str(backup))
    size = backup.stat().st_size / 1e6
    print(f"{name:10} backup {seconds:6.2f} s  {size:7.2f} MB   restore {restore:6.2f} s")


def tests_module(name: str):
    """Return tests/<name>.py, imported by its path as part of the tests' namespace package (its
    own imports of other helpers work), with nothing added to the import path."""
    if "tests" not in sys.modules:
        spec = importlib.machinery.PathFinder.find_spec("tests", [str(ROOT)])
        sys.modules["tests"] = importlib.util.module_from_spec(spec)
    return importlib.import_module(f"tests.{name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--learners", type=int, default=300)
    parser.add_argument("--attempts", type=int, default=40)
    args = parser.parse_args()
    Server = tests_module("postgres").Server  # a server of its own, as the tests start  # noqa: N806

    folder = Path(tempfile.mkdtemp(prefix="bench-backup-"))
    server = Server.start(Path(tempfile.mkdtemp(prefix="bpn-pg-")))
    try:
        pg, empty = server.new_database(), server.new_database()
        from app.storage.engine import make_engine
        from app.storage.schema import upgrade

        upgrade(make_engine(pg))
        sqlite = f"sqlite:///{folder}/progress.sqlite3"
        started = time.perf_counter()
        for url in (pg, sqlite):
            fill(url, args.learners, args.attempts)
        rows = args.learners * (len(EXERCISES) + args.attempts + 2)
        filled, load = time.perf_counter() - started, os.getloadavg()[0]
        print(f"{args.learners} learners, {rows:,} rows per database (filled in {filled:.0f} s);"
              f" load {load:.1f}")  # fmt: skip
        measure("postgresql", pg, empty, folder)
        measure("sqlite", sqlite, f"sqlite:///{folder}/restored.sqlite3", folder)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
