"""Benchmark: grading under load, with the app's own sandbox (2 slots, a queue of 32).

Prints, for 20 submissions sent at once through Grader.grade from 20 threads (a class pressing
Ctrl+Enter together), the latency of each from submit to result: p50 / p95 / max over several
rounds. Then the latency of honest submissions while one learner's infinite loop holds a slot
(it runs to the 5 s CPU limit), and, for contrast, while two loops hold both slots.
Target (DESIGN.md): 20 concurrent submissions on 2 cores, p95 <= 1 s.

    .venv/bin/python bench/bench_load.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import data
from grader import Grader
from grader.sandbox import Sandbox

WRONG = {
    "dcounts_sum_inv": "dcounts_sum_inv = (counts * dprobs).sum(1)",
    "dbndiff": "dbndiff = bnvar_inv * dbnraw",
    "dh": "dh = dlogits @ W2.T * 2",
    "dprobs": "dprobs = 1 / 0",
}
RIGHT = ("dlogprobs", "dcounts", "dlogits", "dbnvar", "dhprebn", "dC", "dW1", "dhprebn_fused")
LOOP = "while True:\n    pass\n"


def percentile(values: list[float], q: float) -> float:
    """Return the q-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def figures(times: list[float]) -> str:
    """Format p50 / p95 / max in milliseconds."""
    p50, p95 = percentile(times, 50), percentile(times, 95)
    return f"p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {max(times) * 1000:.0f} ms"


def timed(grader: Grader, job: tuple[str, str]) -> float:
    """Grade one submission and return how long the learner waited."""
    start = time.perf_counter()
    grader.grade(*job)
    return time.perf_counter() - start


def burst(grader: Grader, jobs: list, rounds: int) -> list[float]:
    """Send 20 submissions at once, `rounds` times; return every latency."""
    times = []
    with ThreadPoolExecutor(20) as pool:
        for r in range(rounds):
            batch = [jobs[(r * 20 + i) % len(jobs)] for i in range(20)]
            times += pool.map(lambda job: timed(grader, job), batch)
    return times


def beside_loops(grader: Grader, jobs: list, loops: int) -> tuple[list[float], float]:
    """Grade honest answers one after another while `loops` infinite loops run."""
    runners = [threading.Thread(target=grader.grade, args=("dh", LOOP)) for _ in range(loops)]
    for runner in runners:
        runner.start()
    time.sleep(0.3)  # the loops hold their slots
    times, start = [], time.perf_counter()
    while any(r.is_alive() for r in runners) and len(times) < 200:
        times.append(timed(grader, jobs[len(times) % len(jobs)]))
    for runner in runners:
        runner.join()
    return times, time.perf_counter() - start


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    grader = Grader(data.default_dataset(), sandbox=Sandbox())
    right = [(e, grader.catalog.get(e).solution()) for e in RIGHT]
    jobs = right + list(WRONG.items())
    for job in jobs:  # warm: references and mistake outputs computed once, as in a live app
        grader.grade(*job)
    limits = grader.sandbox.limits
    print(
        f"machine: {os.cpu_count()} cores; sandbox: 2 slots, queue 32, "
        f"cpu {limits.cpu_seconds:g} s, wall {limits.wall_seconds:g} s"
    )
    times = burst(grader, jobs, args.rounds)
    print(f"20 concurrent submissions x {args.rounds} rounds (n={len(times)}): {figures(times)}")
    print("  target: p95 <= 1000 ms")
    for loops in (1, 2):
        honest, spent = beside_loops(grader, right, loops)
        print(
            f"honest submissions while {loops} infinite loop(s) run ({spent:.1f} s, "
            f"n={len(honest)}): {figures(honest)}"
        )


if __name__ == "__main__":
    main()
