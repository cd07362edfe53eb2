"""Benchmark: the replica's own CPU for a wrong answer, the grading's side and the feedback's.

bench_class.py's wrong answers (bench_load's WRONG, and each solution scaled by 2: both draw
the heatmaps) are graded one at a time through the real Sandbox and Grader, and each result is
shown by app/views/results.py's `show_result` as the exercise page does (Streamlit in bare mode:
every element is built and marshalled, the heatmaps' table converted to Arrow, nothing sent).
For each answer it prints, medians of `--rounds`:
- grade: this process's CPU in `Grader.grade` (the checks, the hints' detectors, the heatmap's
  arrays, the job's encoding and the stream's decoding: what runs in the replica's process; the
  sandbox's zygote and worker are other processes, not counted);
- show: the script thread's CPU in `show_result` (the verdict, the checks, the heatmaps' table
  and spec);
- runs: sandbox runs per grading (a hint whose rewrite is checked runs one more);
- table: the heatmaps' table as Streamlit's Arrow bytes.
`--baseline COMMIT` runs that commit's grader and app (a temporary git worktree, this
benchmark's code) and this checkout's alternately, `--pairs` times, each in a fresh process,
and prints the medians and the ratios baseline / new.

    .venv/bin/python bench/bench_wrong.py [--rounds 10] [--baseline main --pairs 4]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_sandbox_cpu import checkouts

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions" / "01_mlp"
# bench_class.py's (and bench_load.py's) wrong answers, each on an exercise with a solution.
WRONG = {
    "dcounts_sum_inv": "dcounts_sum_inv = (counts * dprobs).sum(1)",
    "dbndiff": "dbndiff = bnvar_inv * dbnraw",
    "dh": "dh = dlogits @ W2.T * 2",
    "dprobs": "dprobs = 1 / 0",
}


def answers() -> list[tuple[str, str, str]]:
    """Return (label, exercise, code) for each wrong answer: WRONG's, then the scaled ones."""
    found = [(f"{e} WRONG", e, code) for e, code in WRONG.items()]
    for exercise in WRONG:
        right = (SOLUTIONS / f"{exercise}.py").read_text()
        found.append(
            (f"{exercise} x2", exercise, f"{right.rstrip()}\n{exercise} = {exercise} * 2\n")
        )
    return found


def own_cpu() -> float:
    """Return this process's CPU seconds so far (user + system, all its threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(rounds: int) -> dict:
    """Grade and show every wrong answer `rounds` times; return ms figures per answer."""
    from streamlit import dataframe_util, logger

    import data
    from app.views.plots import heatmap_chart
    from app.views.results import show_result
    from grader import Grader
    from grader.sandbox import Sandbox

    logger.set_log_level("error")  # bare mode: no "missing ScriptRunContext" per element
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").disabled = True
    sandbox = Sandbox()
    grader = Grader(data.default_dataset(), sandbox=sandbox)
    runs = {"n": 0}
    original = Sandbox.run

    def counted(self, *args, **kwargs):
        runs["n"] += 1
        return original(self, *args, **kwargs)

    Sandbox.run = counted
    jobs = answers()
    try:
        for _, exercise, code in jobs:  # warm: references and mistake outputs computed once
            show_result(grader.grade(exercise, code))
            show_result(grader.grade(exercise, code))
        found = {label: {"grade": [], "show": [], "runs": [], "table": 0} for label, *_ in jobs}
        for _ in range(rounds):
            for label, exercise, code in jobs:
                runs["n"] = 0
                used = own_cpu()
                result = grader.grade(exercise, code)
                graded = own_cpu()
                shown = time.thread_time()
                show_result(result)
                shown = time.thread_time() - shown
                assert not result.solved, label
                figures = found[label]
                figures["grade"].append((graded - used) * 1000)
                figures["show"].append(shown * 1000)
                figures["runs"].append(runs["n"])
                if result.heatmap is not None:
                    cells, _ = heatmap_chart(result.heatmap, result.answer)
                    figures["table"] = len(dataframe_util.convert_anything_to_arrow_bytes(cells))
    finally:
        sandbox.close()
    out = {
        label: {k: statistics.median(v) if isinstance(v, list) else v for k, v in f.items()}
        for label, f in found.items()
    }
    return {"answers": out, "load": os.getloadavg()[0]}


def table(figures: dict) -> list[str]:
    """Return one line per answer and the sums."""
    lines = []
    for label, f in figures["answers"].items():
        lines.append(
            f"  {label:22s} grade {f['grade']:5.1f} ms, show {f['show']:5.1f} ms, "
            f"runs {f['runs']:.0f}, table {f['table']:,.0f} bytes"
        )
    return lines


def totals(figures: dict) -> dict[str, float]:
    """Return the sums over the answers of grade, show and both (ms)."""
    grade = sum(f["grade"] for f in figures["answers"].values())
    show = sum(f["show"] for f in figures["answers"].values())
    return {"grade": grade, "show": show, "both": grade + show}


def run_in(checkout: Path, args) -> dict:
    """Run this benchmark on a checkout's grader and app (first on the path) with --json."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    argv = [sys.executable, str(Path(__file__).resolve()), "--json", "--rounds", str(args.rounds)]
    done = subprocess.run(argv, cwd=checkout, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])


def side_by_side(args) -> None:
    """Alternate fresh runs of the baseline's checkout and this one; print the medians of the
    runs' figures and the ratios baseline / new."""
    found: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp, checkouts(args.baseline, Path(tmp)) as trees:
        for i in range(args.pairs):
            for label, tree in trees:
                found.setdefault(label, []).append(run_in(tree, args))
                sums = totals(found[label][-1])
                print(
                    f"pair {i + 1}, {label:16s}: the {len(WRONG) * 2} answers' sums: grade "
                    f"{sums['grade']:.1f} ms, show {sums['show']:.1f} ms; load "
                    f"{found[label][-1]['load']:.1f}",
                    flush=True,
                )
    medians = {}
    for label, runs_ in found.items():
        labels = runs_[0]["answers"]
        medians[label] = {
            "answers": {
                a: {
                    k: statistics.median(r["answers"][a][k] for r in runs_)
                    for k in runs_[0]["answers"][a]
                }
                for a in labels
            },
            "load": statistics.median(r["load"] for r in runs_),
        }
    (old, a), (new, b) = medians.items()
    for label, m in medians.items():
        print(f"\n{label}, medians of {args.pairs} runs of {args.rounds} rounds:")
        print("\n".join(table(m)))
    print(f"\n{old} / {new}, per answer (grade; show; both):")
    for answer in a["answers"]:
        x, y = a["answers"][answer], b["answers"][answer]
        print(
            f"  {answer:22s} x{x['grade'] / y['grade']:.2f}; x{x['show'] / y['show']:.2f}; "
            f"x{(x['grade'] + x['show']) / (y['grade'] + y['show']):.2f}"
        )
    ta, tb = totals(a), totals(b)
    print(
        f"  all {len(a['answers'])} answers: grade {ta['grade']:.1f} -> {tb['grade']:.1f} ms "
        f"(x{ta['grade'] / tb['grade']:.2f}); show {ta['show']:.1f} -> {tb['show']:.1f} ms "
        f"(x{ta['show'] / tb['show']:.2f}); both x{ta['both'] / tb['both']:.2f}"
    )


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--baseline", default="", help="a commit to run beside this checkout")
    parser.add_argument("--pairs", type=int, default=4, help="with --baseline: runs of each")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline:
        side_by_side(args)
        return
    found = run(args.rounds)
    if args.json:
        print(json.dumps(found))
        return
    print(f"wrong answers one at a time, medians of {args.rounds}; load {found['load']:.1f}")
    print("\n".join(table(found)))


if __name__ == "__main__":
    main()
