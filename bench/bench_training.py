"""Benchmark Exercise 4: steps/s of autograd, of the learner's loop bare, and in the app's worker.

python bench/bench_training.py [--steps 3000] [--rounds 8] [--full] [--baseline COMMIT]

One thread everywhere, in one run: each round trains the loops one after the other with the
same settings and data (the lecture's names.txt from ../shared/data when it is there, else the
embedded default): autograd, the learner's loop bare (the reference solution: fused
cross-entropy and batchnorm, dC with index_add_), the same loop in the app's worker, and the
page's whole loop with that section compiled as one plain Python function (no namespace, no
exec per step, no checks or reports: the physical limit). Other processes can only slow a
loop down, so the best round of each is the figure to compare on a shared machine; the median
and the rate per CPU second are shown too (the worker's CPU is its exit report's, less that of
a 10-step run: its start and end). Targets: the reference solution in the worker >= 1.6x the
autograd loop; the worker <= 5% slower than the same loop bare.
--full then trains the lecture's 200,000 steps in the worker and with autograd, and prints the
train and val losses after batchnorm calibration beside the lecture's 2.0705 / 2.1099.
--baseline COMMIT runs that commit's grader (a temporary git worktree, this benchmark's code,
the same venv) beside this checkout's, round by round, then --full for both, and prints both.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import torch
import torch.nn.functional as F

import data
from grader.course.exercises import discover
from grader.sandbox.training.loop import compile_section, prepare, section_backward, train
from grader.training.autograd import run_reference, train_autograd
from grader.training.job import TrainingJob
from grader.training.model import lecture_model
from grader.training.records import Evaluation, TrainSettings
from grader.training.section import PARTS, compose, whole_program

ROOT = Path(__file__).resolve().parents[1]
NAMES = ROOT.parent / "shared" / "data" / "names.txt"
LECTURE = (2.0705, 2.1099)
LABELS = {
    "autograd": "autograd loop (loss.backward())",
    "bare": "learner-style loop, bare (reference)",
    "worker": "the same loop in the app's worker",
    "plain": "the page's loop, one function (limit)",
}
FIXED_STEPS = 10  # a run this short measures the worker's start and end


def dataset():
    """Return names.txt's dataset if it is there, else the embedded default."""
    if NAMES.exists():
        return data.build_dataset(NAMES.read_text(encoding="utf-8").splitlines(), 3, name="names")
    return data.default_dataset()


def reference_section() -> str:
    """Return the backward section made of the reference solutions."""
    catalog = discover()
    solved = {i: catalog.get(i).solution() for i, _ in PARTS}
    return compose(solved, solved)


def _timed(run) -> tuple[float, float]:
    """Run one loop; return its steps/s by the loop's own clock and per CPU second."""
    seen = {}
    cpu = time.process_time()
    run(lambda step, elapsed, losses: seen.update(step=step, elapsed=elapsed))
    return seen["step"] / seen["elapsed"], seen["step"] / (time.process_time() - cpu)


def autograd(ds, wire: dict) -> tuple[float, float]:
    program = lecture_model().program()
    return _timed(lambda report: train_autograd(program, wire, ds.Xtr, ds.Ytr, report))


def bare(ds, wire: dict, section: str) -> tuple[float, float]:
    program = lecture_model().program()

    def run(report) -> None:
        ns = prepare(program, wire, ds.Xtr, ds.Ytr)
        with torch.inference_mode():
            train(program, ns, wire, section_backward(compile_section(section)), report)

    return _timed(run)


def _worker_cpu(ds, settings: TrainSettings, section: str) -> tuple[float, TrainingJob]:
    """Train in the app's worker; return its CPU seconds (the trainer's exit report) and job."""
    job = TrainingJob(section, settings, ds)
    status = job.wait()
    assert status.state == "finished", status.message
    return job.exit_report["cpu"], job


def worker(ds, settings: TrainSettings, section: str, fixed: float) -> tuple[float, float]:
    """Train in the app's worker; the CPU per step leaves out `fixed`, its start and end."""
    cpu, job = _worker_cpu(ds, settings, section)
    loop_cpu = max(cpu - fixed, 1e-9)
    return job.status().report.steps_per_s, (settings.steps - FIXED_STEPS) / loop_cpu


def plain(ds, settings: TrainSettings, section: str) -> tuple[float, float]:
    """The page's whole loop with the reference section (section.whole_program) as one function:
    no namespace, no exec per step, no checks, no reports: plain torch, the limit."""
    sizes = ds.vocab_size, ds.block_size
    text = whole_program(settings, *sizes, lecture_model().program(), section)
    source = "def loop(torch, F, Xtr, Ytr):\n" + textwrap.indent(text + "return lossi\n", "    ")
    ns: dict = {}
    exec(compile(source, "<the page's loop>", "exec"), ns)
    wall, cpu = time.perf_counter(), time.process_time()
    ns["loop"](torch, F, ds.Xtr, ds.Ytr)
    return settings.steps / (time.perf_counter() - wall), settings.steps / (
        time.process_time() - cpu
    )


def one_round(ds, steps: int, section: str, fixed: float) -> dict[str, tuple[float, float]]:
    """Train each loop once; return each one's steps/s by its clock and per CPU second."""
    settings = TrainSettings(steps=steps, decay_step=steps // 2)
    wire = settings.wire(ds.vocab_size, ds.block_size)
    return {
        "autograd": autograd(ds, wire),
        "bare": bare(ds, wire, section),
        "worker": worker(ds, settings, section, fixed),
        "plain": plain(ds, settings, section),
    }


def fixed_cost(ds, section: str) -> float:
    """Return the worker's CPU seconds for a run of FIXED_STEPS steps: its start and end."""
    settings = TrainSettings(steps=FIXED_STEPS, decay_step=FIXED_STEPS // 2)
    return min(_worker_cpu(ds, settings, section)[0] for _ in range(3))


def speeds(rounds: list[dict], steps: int, name: str, label: str = "") -> dict:
    """Print the best, median and per CPU s figures of each loop over the rounds; return best."""
    best = {k: max(r[k][0] for r in rounds) for k in LABELS}
    cpu = {k: max(r[k][1] for r in rounds) for k in LABELS}
    median = {k: statistics.median(r[k][0] for r in rounds) for k in LABELS}
    print(f"\n{label}steps/s over {len(rounds)} alternating rounds of {steps:,} steps, one thread"
          + (f" ({name}):" if name else ":"))  # fmt: skip
    print(f"  {'':40s} {'best':>7s} {'median':>7s} {'per CPU s':>10s}")
    for key, text in LABELS.items():
        print(f"  {text:40s} {best[key]:7,.0f} {median[key]:7,.0f} {cpu[key]:10,.0f}")
    _targets(best, cpu)
    return {"best": best, "cpu": cpu, "median": median}


def _targets(best: dict, cpu: dict) -> None:
    """Print the ratios the design sets targets for, and the limit."""
    in_worker, bare_ = best["worker"] / best["autograd"], best["bare"] / best["autograd"]
    by_cpu = cpu["worker"] / cpu["autograd"]
    print(f"  reference / autograd: {in_worker:.2f}x in the worker ({by_cpu:.2f}x per CPU s),"
          f" {bare_:.2f}x bare (target >= 1.6x)")  # fmt: skip
    wall, per_cpu = 1 - best["worker"] / best["bare"], 1 - cpu["worker"] / cpu["bare"]
    print(f"  worker overhead against bare: {wall:+.1%} (best), {per_cpu:+.1%} per CPU s"
          " (target <= 5%)")  # fmt: skip
    limit = cpu["plain"] / cpu["autograd"]
    print(f"  plain torch (the limit) / autograd: {limit:.2f}x per CPU s; the worker reaches"
          f" {cpu['worker'] / cpu['plain']:.0%} of it")  # fmt: skip


def full(ds, section: str) -> dict:
    """Train the lecture's 200,000 steps in the worker and with autograd; print the losses."""
    settings = TrainSettings()
    started = time.monotonic()
    status = TrainingJob(section, settings, ds).wait()
    report = status.report
    print(f"\nthe lecture's run, 200,000 steps ({ds.name}):")
    if report is None or report.evaluation is None:
        print(f"  the worker's run did not finish: {status.state}: {status.message}")
        return {}
    found = {"worker": _losses("reference solution in the worker", report.evaluation,
                               report.steps_per_s, time.monotonic() - started)}  # fmt: skip
    started = time.monotonic()
    result = run_reference(lecture_model(), ds, settings, lambda step: None)
    evaluation = Evaluation(**result["evaluation"])
    seconds = time.monotonic() - started
    found["autograd"] = _losses("autograd", evaluation, result["steps_per_s"], seconds)
    print(f"  {'the lecture':34s} train {LECTURE[0]:.4f}   val {LECTURE[1]:.4f}")
    print(f"  samples (worker): {', '.join(report.evaluation.samples)}")
    return found


def _losses(label: str, evaluation, rate: float, seconds: float) -> list[float]:
    train_loss, val_loss = evaluation.train_loss, evaluation.val_loss
    gap = max(abs(train_loss - LECTURE[0]), abs(val_loss - LECTURE[1]))
    print(f"  {label:34s} train {train_loss:.4f}   val {val_loss:.4f}   "
          f"(within {gap:.4f} of the lecture)   {rate:,.0f} steps/s, {seconds:.0f} s")  # fmt: skip
    return [train_loss, val_loss, rate, seconds]


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


def _in(checkout: Path, *args: str) -> dict:
    """Run this benchmark on a checkout's grader (first on the path) and return its figures."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    argv = [sys.executable, str(Path(__file__).resolve()), "--json", *args]
    done = subprocess.run(argv, cwd=checkout, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])


def side_by_side(baseline: str, args) -> None:
    """Alternate the rounds between the baseline's grader and this checkout's; then --full."""
    rounds: dict[str, list] = {}
    with tempfile.TemporaryDirectory() as tmp, checkouts(baseline, Path(tmp)) as trees:
        for i in range(args.rounds):
            for label, tree in trees:
                out = _in(tree, "--steps", str(args.steps), "--rounds", "1")
                found, name = out["rounds"][0], out["name"]
                rounds.setdefault(label, []).append(found)
                print(f"round {i + 1:2d}, {label:16s}: " + _line(found), flush=True)
        best = {label: speeds(r, args.steps, name, f"{label}: ") for label, r in rounds.items()}
        _ratios(best)
        if args.full:
            for label, tree in trees:
                print(f"\n{label}:", _in(tree, "--rounds", "0", "--full")["full"], flush=True)


def _line(found: dict) -> str:
    return "   ".join(f"{k} {v[0]:7,.0f}" for k, v in found.items())


def _ratios(best: dict) -> None:
    """Print new / baseline for each loop, best steps/s and per CPU s."""
    (old, a), (new, b) = best.items()
    print(f"\n{new} / {old}:")
    for key, text in LABELS.items():
        wall, cpu = b["best"][key] / a["best"][key], b["cpu"][key] / a["cpu"][key]
        print(f"  {text:40s} best x{wall:.2f}, per CPU s x{cpu:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--baseline", default="", help="a commit to run beside this checkout")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.baseline:
        side_by_side(args.baseline, args)
        return
    ds, section = dataset(), reference_section()
    fixed = fixed_cost(ds, section) if args.rounds else 0.0
    found: dict = {"rounds": [], "full": {}, "name": ds.name}
    for i in range(args.rounds):
        found["rounds"].append(one_round(ds, args.steps, section, fixed))
        if not args.json:
            print(f"round {i + 1:2d}: " + _line(found["rounds"][-1]), flush=True)
    if args.rounds and not args.json:
        speeds(found["rounds"], args.steps, ds.name)
    if args.full:
        found["full"] = full(ds, section)
    if args.json:
        print(json.dumps(found))


if __name__ == "__main__":
    main()
