"""Benchmark: where the sandbox's CPU goes per right answer, graded one at a time.

Grades right answers through the real Sandbox and Grader (as bench_grading.py does), one at a
time, `--pace` seconds apart, and reports per grading the CPU (user + system) of
- the grader's process (the parent: the checks, the job's encoding, the stream's decoding);
- the zygotes themselves (handing a spare over, watching and reaping it, forking the next one);
- the workers: the spare before its run (fork, confinement, warm-up), read from /proc just
  before the grading, and in all (the zygote's exit report), the run being the difference.
The zygote's and the spare's figures come from /proc/<pid>/task/*/schedstat (time on a CPU).
`--baseline COMMIT` runs that commit's sandbox and grader (a temporary git worktree, this
benchmark's code) and this checkout's alternately, `--pairs` times, each in a fresh process,
and prints the medians and their ratios. Run as root and as an ordinary user:
setpriv --reuid=USER --regid=USER --clear-groups -- .venv/bin/python bench/bench_sandbox_cpu.py

    .venv/bin/python bench/bench_sandbox_cpu.py [--rounds 10] [--pace 0.15] [--baseline main]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import data
from grader import Grader
from grader.sandbox import Sandbox
from grader.sandbox.client import ZygoteClient

ROOT = Path(__file__).resolve().parents[1]
RIGHT = ("dlogprobs", "dcounts", "dlogits", "dbnvar", "dhprebn", "dC", "dhprebn_fused")
REPORTS: list[dict] = []  # every exit report the parent collected, deferred ones included


def _recording(original):
    """Wrap ZygoteClient._report so that each exit report is kept for the figures."""

    def report(self, run_id: int, deadline: float) -> dict:
        found = original(self, run_id, deadline)
        REPORTS.append(found)
        return found

    return report


def own_cpu() -> float:
    """Return this process's CPU seconds so far (user + system, all its threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def stat(pid: int) -> list[bytes] | None:
    """Return the fields of /proc/<pid>/stat after the command's name, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None


def cpu_of(pid: int) -> float:
    """Return a process's CPU seconds so far, every thread's, in nanoseconds' precision (from
    /proc/<pid>/task/*/schedstat: /proc/<pid>/stat counts clock ticks of 10 ms)."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
    except OSError:
        pass
    return total / 1e9


def spares(sandbox: Sandbox) -> dict[int, float]:
    """Return each zygote's waiting spare (its children) and the CPU it has used so far."""
    found = {}
    for zygote in sandbox._zygotes:
        pid = zygote.proc.pid
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found |= {int(child): cpu_of(int(child)) for child in f.read().split()}
    return found


def zygotes_cpu(sandbox: Sandbox) -> float:
    """Return the zygotes' own CPU seconds (without their reaped workers')."""
    return sum(cpu_of(zygote.proc.pid) for zygote in sandbox._zygotes)


def measure(grader: Grader, sandbox: Sandbox, jobs: list, rounds: int, pace: float) -> dict:
    """Grade every job `rounds` times, `pace` s apart; return CPU figures in ms per grading."""
    before_spares, wall = [], []
    REPORTS.clear()
    parent, zygote = own_cpu(), zygotes_cpu(sandbox)
    waiting = None
    for exercise, code in [job for _ in range(rounds) for job in jobs] + [(None, None)]:
        time.sleep(pace)
        if waiting is not None:  # the spare the last run took has been reaped by now
            before_spares.append(sum(cpu for pid, cpu in waiting.items() if stat(pid) is None))
        if exercise is None:
            break
        waiting = spares(sandbox)
        t = time.perf_counter()
        assert grader.grade(exercise, code).solved
        wall.append(time.perf_counter() - t)
    n = len(wall)
    parent_ms = (own_cpu() - parent) / n * 1000
    zygote_ms = (zygotes_cpu(sandbox) - zygote) / n * 1000
    worker_ms = sum(r["cpu"] for r in REPORTS if "cpu" in r) / max(1, len(REPORTS)) * 1000
    spare_ms = statistics.mean(before_spares) * 1000
    return {"n": n, "runs": len(REPORTS), "wall_p50": statistics.median(wall) * 1000,
            "parent": parent_ms, "zygote": zygote_ms, "worker": worker_ms,
            "spare": spare_ms}  # fmt: skip


def settled(sandbox: Sandbox, within: float = 120.0) -> None:
    """Wait until every zygote takes runs (a held one starts once the one before is ready), so
    that no zygote's start falls in the measured window; a baseline without held zygotes
    (before b0e8695) has none to wait for."""
    give_up = time.monotonic() + within
    while getattr(sandbox.load(), "held", 0) and time.monotonic() < give_up:
        time.sleep(0.1)


def warm(grader: Grader, sandbox: Sandbox, jobs: list, within: float = 120.0) -> None:
    """Compute the references, then grade the jobs two at a time until every zygote has run
    twice: a zygote's first runs teach it the pages its spares copy, in its own CPU, which is
    not a grading's (a baseline whose zygotes count no runs is warmed once)."""
    for exercise, code in jobs:
        grader.grade(exercise, code)
    settled(sandbox, within)
    give_up = time.monotonic() + within
    while min(getattr(z, "runs", 2) for z in sandbox._zygotes) < 2 and time.monotonic() < give_up:
        with ThreadPoolExecutor(len(sandbox._zygotes)) as pool:
            list(pool.map(lambda job: grader.grade(*job), jobs))


def run(rounds: int, pace: float) -> dict:
    """Start a sandbox and a grader, warm them, and measure; return the figures."""
    ZygoteClient._report = _recording(ZygoteClient._report)
    sandbox = Sandbox()
    grader = Grader(data.default_dataset(), sandbox=sandbox)
    jobs = [(e, grader.catalog.get(e).solution()) for e in RIGHT]
    warm(grader, sandbox, jobs)
    try:
        return measure(grader, sandbox, jobs, rounds, pace) | {"load": os.getloadavg()[0]}
    finally:
        sandbox.close()


def line(f: dict) -> str:
    """Return one run's figures on one line."""
    total = f["parent"] + f["zygote"] + f["worker"]
    return (
        f"CPU per grading: parent {f['parent']:.1f} ms, zygote {f['zygote']:.1f} ms, worker "
        f"{f['worker']:.1f} ms (the spare before its run {f['spare']:.1f} ms, the run and "
        f"exit {f['worker'] - f['spare']:.1f} ms); in all {total:.1f} ms; wall p50 "
        f"{f['wall_p50']:.1f} ms; load {f['load']:.1f}"
    )


@contextlib.contextmanager
def checkouts(baseline: str, folder: Path) -> Iterator[list[tuple[str, Path]]]:
    """Yield the baseline commit checked out into a temporary git worktree (detached; removed
    at the end) and this checkout, labelled."""
    git = ["git", "-C", str(ROOT)]
    found = subprocess.run([*git, "rev-parse", "--verify", f"{baseline}^{{commit}}"],
                           check=True, capture_output=True, text=True)  # fmt: skip
    commit, path = found.stdout.strip(), folder / "baseline"
    subprocess.run([*git, "worktree", "add", "--detach", "--quiet", str(path), commit], check=True)
    try:
        yield [(f"baseline {commit[:7]}", path), ("new", ROOT)]
    finally:
        subprocess.run([*git, "worktree", "remove", "--force", str(path)], check=False)


def run_in(checkout: Path, args, script: str = __file__) -> dict:
    """Run a benchmark script (this one unless told) on a checkout's grader (first on the
    path) with --json; return its figures."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    argv = [sys.executable, str(Path(script).resolve()), "--json"]
    argv += ["--rounds", str(args.rounds), "--pace", str(args.pace)]
    done = subprocess.run(argv, cwd=checkout, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])


def side_by_side(args) -> None:
    """Alternate fresh runs of the baseline's sandbox and this checkout's; print the medians
    of each figure and the ratios baseline / new."""
    found: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp, checkouts(args.baseline, Path(tmp)) as trees:
        for i in range(args.pairs):
            for label, tree in trees:
                found.setdefault(label, []).append(run_in(tree, args))
                print(f"pair {i + 1}, {label:16s}: {line(found[label][-1])}", flush=True)
    medians = {k: {f: statistics.median(r[f] for r in v) for f in v[0]} for k, v in found.items()}
    (old, a), (new, b) = medians.items()
    print(f"\nmedians of {args.pairs}:\n  {old:16s}: {line(a)}\n  {new:16s}: {line(b)}")
    total = {k: m["parent"] + m["zygote"] + m["worker"] for k, m in medians.items()}
    ratios = ", ".join(f"{f} x{a[f] / b[f]:.2f}" for f in ("parent", "zygote", "worker"))
    print(f"{old} / {new}: {ratios}, in all x{total[old] / total[new]:.2f}, "
          f"wall p50 x{a['wall_p50'] / b['wall_p50']:.2f}")  # fmt: skip


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--pace", type=float, default=0.15, help="seconds between gradings")
    parser.add_argument("--baseline", default="", help="a commit to run beside this checkout")
    parser.add_argument("--pairs", type=int, default=4, help="with --baseline: runs of each")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline:
        side_by_side(args)
        return
    found = run(args.rounds, args.pace)
    if args.json:
        print(json.dumps(found))
        return
    print(f"right answers one at a time, {args.pace:g} s apart: n={found['n']} "
          f"({found['runs']} sandbox runs), uid {os.geteuid()}")  # fmt: skip
    print(line(found))


if __name__ == "__main__":
    main()
