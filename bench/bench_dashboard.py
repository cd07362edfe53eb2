"""Benchmark the instructor dashboard on a generated class: the grid's query and first paint.

    python bench/bench_dashboard.py [--url sqlite:///PATH | postgresql://...] [--learners 300]
        [--exercises 31] [--attempts 10] [--rounds 5]

Fills a fresh progress database (a temporary SQLite file unless --url names one, which must be
empty) with LEARNERS people, each with ATTEMPTS attempts at each of EXERCISES items of the
course (the lecture's exercises and whole pass, ids repeated with a suffix when more are
asked for), some solving, some with a misconception, then times:
- the grid's query (ClassView.class_cells(), the slowest of the page's reads) and the page's other
  reads, each the median of --rounds;
- the page's first paint: AppTest renders app/screens/instructor.py, cold (the first session
  of the process: imports, the exercise files read) and then warm, as the instructor of the
  local mode; "first paint" is the page's render() (the server's work before the browser can
  paint), "AppTest run" the whole run with the harness's own start-up.
It ends with the figures beside issue 20's goals (under 1 s for the query, 2 s to paint).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GOALS = {"grid query": 1.0, "first paint (warm)": 2.0}  # seconds, at most
MISCONCEPTIONS = ("sign_flipped", "bessel", "keepdim_lost", "broadcast_not_summed", "transposed")
CODE = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / n\n" * 3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="")
    parser.add_argument("--learners", type=int, default=300)
    parser.add_argument("--exercises", type=int, default=31)
    parser.add_argument("--attempts", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="bench-dashboard-")
    url = args.url or f"sqlite:///{folder}/progress.sqlite3"
    os.environ.update({"NINJA_DATA_DIR": folder, "NINJA_DATABASE_URL": url})
    os.environ.update({"NINJA_INSTRUCTOR": "1", "NINJA_MODE": "local"})
    from app import classroom, services

    store = services.store()
    view = classroom.ClassView(store)
    items = _items(services.declared(), args.exercises)
    started = time.perf_counter()
    total = generate(store, items, args.learners, args.attempts)
    print(f"database: {url}")
    print(
        f"generated {args.learners} learners x {len(items)} items x {args.attempts} attempts"
        f" = {total} attempts in {time.perf_counter() - started:.1f} s"
    )
    figures = {"grid query": _median(view.class_cells, args.rounds)}
    figures["learners query"] = _median(view.class_learners, args.rounds)
    figures["misconceptions query"] = _median(view.class_misconceptions, args.rounds)
    figures["stuck query"] = _median(lambda: view.class_stuck(time.time() - 3600, 5), args.rounds)
    figures |= paint()
    for name, seconds in figures.items():
        goal = GOALS.get(name)
        verdict = (
            ""
            if goal is None
            else f"  (goal < {goal:.0f} s: {'met' if seconds < goal else 'MISSED'})"
        )
        print(f"{name:>24}: {seconds * 1000:8.0f} ms{verdict}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def _items(catalog, wanted: int) -> list[str]:
    """Return `wanted` item ids: the course's own, then more made from them."""
    from grader.gradebook import columns_of

    own = list(columns_of(catalog))
    extra = [f"{own[i % len(own)]}_{i}" for i in range(max(0, wanted - len(own)))]
    return (own + extra)[:wanted]


def generate(store, items: list[str], learners: int, attempts: int) -> int:
    """Insert the class: people, profiles and attempts (a few solve, some misconceptions)."""
    from app import classroom

    rng = random.Random(20)
    now = time.time()
    rows = []
    for n in range(learners):
        profile = store.learners.add_profile("learner", owner=f"https://id.bench {n}")
        classroom.ClassView(store).note_person(
            profile.owner, f"Learner {n:03}", f"l{n:03}@uni.test", (f"section {n % 4}",), "learner"
        )
        for item in items:
            solves_at = rng.randrange(attempts + 3)  # beyond attempts: never solved
            for k in range(attempts):
                solved = k == solves_at
                mis = "" if solved else rng.choice(("",) + MISCONCEPTIONS)
                at = now - rng.uniform(0, 7 * 86400)
                rows.append(
                    {
                        "p": profile.id,
                        "e": item,
                        "code": CODE,
                        "solved": int(solved),
                        "mis": mis,
                        "status": "solved" if solved else "not_solved",
                        "at": at,
                        "c": store.course,
                    }
                )
    sql = (
        "INSERT INTO attempts (profile_id, exercise_id, code, solved, summary, elapsed,"
        " time_spent, dataset, created_at, ran, failed_check, misconception, status, facts,"
        " course_id, version, origin) VALUES (:p, :e, :code, :solved, 'a verdict', 0.01, 30.0,"
        " 'default', :at, 1, '', :mis, :status, 'graded', :c, '', 'editor')"
    )
    with store._db() as db:
        db.executemany(sql, rows)
    return len(rows)


def _median(call, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def paint() -> dict[str, float]:
    """Return the seconds to render the dashboard in AppTest, cold (the process's first) then
    warm (median of 3): the page's own render() (the server's work for the first paint), and
    the whole AppTest run (which adds the harness's own start-up)."""
    from streamlit.testing.v1 import AppTest

    def script():
        import time

        import streamlit as st

        from app.screens import instructor

        started = time.perf_counter()
        instructor.render()
        st.session_state["bench_render"] = time.perf_counter() - started

    figures = {}
    for name, runs in (("cold", 1), ("warm", 3)):
        times, renders = [], []
        for _ in range(runs):
            at = AppTest.from_function(script, default_timeout=600)
            started = time.perf_counter()
            at.run()
            times.append(time.perf_counter() - started)
            renders.append(at.session_state["bench_render"])
            if at.exception:
                raise SystemExit(f"the page failed: {at.exception}")
        figures[f"first paint ({name})"] = statistics.median(renders)
        figures[f"AppTest run ({name})"] = statistics.median(times)
    return figures


if __name__ == "__main__":
    sys.exit(main())
