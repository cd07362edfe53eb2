"""Benchmark Exercise 4: steps/s of autograd, of the learner's loop bare, and in the app's worker.

python bench/bench_training.py [--steps 3000] [--rounds 8] [--full]

One thread everywhere, in one run: each round trains the three loops one after the other with
the same settings and data (the lecture's names.txt from ../shared/data when it is there, else
the embedded default). Other processes can only slow a loop down, so the best round of each is
the figure to compare on a shared machine; the median and the rate per CPU second are shown
too. The learner's loop is the reference solution (fused cross-entropy and batchnorm, dC with
index_add_). Targets: the reference solution >= 1.2x the autograd loop; the worker <= 10%
slower than the same loop bare.
--full then trains the lecture's 200,000 steps in the worker and with autograd, and prints the
train and val losses after batchnorm calibration beside the lecture's 2.0705 / 2.1099.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import torch

import data
from grader.course.exercises import discover
from grader.sandbox.training.loop import compile_section, prepare, section_backward, train
from grader.training.autograd import run_reference, train_autograd
from grader.training.job import TrainingJob
from grader.training.model import lecture_model
from grader.training.records import Evaluation, TrainSettings
from grader.training.section import PARTS, compose

NAMES = Path(__file__).resolve().parents[2] / "shared" / "data" / "names.txt"
LECTURE = (2.0705, 2.1099)
LABELS = {
    "autograd": "autograd loop (loss.backward())",
    "bare": "learner-style loop, bare (reference)",
    "worker": "the same loop in the app's worker",
}


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


def worker(ds, settings: TrainSettings, section: str) -> tuple[float, float]:
    """Train in the app's worker; its CPU time comes from the trainer's exit report."""
    job = TrainingJob(section, settings, ds)
    status = job.wait()
    assert status.state == "finished", status.message
    return status.report.steps_per_s, settings.steps / job.exit_report["cpu"]


def speeds(ds, steps: int, rounds: int, section: str) -> None:
    """Alternate the three loops for some rounds; print the best and median steps/s of each."""
    settings = TrainSettings(steps=steps, decay_step=steps // 2)
    wire = settings.wire(ds.vocab_size, ds.block_size)
    found: dict[str, list] = {"autograd": [], "bare": [], "worker": []}
    for i in range(rounds):
        found["autograd"].append(autograd(ds, wire))
        found["bare"].append(bare(ds, wire, section))
        found["worker"].append(worker(ds, settings, section))
        print(f"round {i + 1:2d}: " + "   ".join(f"{k} {v[-1][0]:7,.0f}" for k, v in found.items()))
    best = {k: max(w for w, _ in v) for k, v in found.items()}
    cpu = {k: max(c for _, c in v) for k, v in found.items()}
    median = {k: statistics.median(w for w, _ in v) for k, v in found.items()}
    print(f"\nsteps/s over {rounds} alternating rounds of {steps:,} steps, one thread ({ds.name}):")
    print(f"  {'':40s} {'best':>7s} {'median':>7s} {'per CPU s':>10s}")
    for key, label in LABELS.items():
        print(f"  {label:40s} {best[key]:7,.0f} {median[key]:7,.0f} {cpu[key]:10,.0f}")
    _targets(best, cpu)


def _targets(best: dict, cpu: dict) -> None:
    """Print the two ratios the design sets targets for."""
    worker, bare = best["worker"] / best["autograd"], best["bare"] / best["autograd"]
    print(f"  reference / autograd: {worker:.2f}x in the worker, {bare:.2f}x bare (target >= 1.2x)")
    wall, per_cpu = 1 - best["worker"] / best["bare"], 1 - cpu["worker"] / cpu["bare"]
    print(f"  worker overhead against bare: {wall:+.1%} (best), {per_cpu:+.1%} per CPU s"
          " (target <= 10%)")  # fmt: skip


def full(ds, section: str) -> None:
    """Train the lecture's 200,000 steps in the worker and with autograd; print the losses."""
    settings = TrainSettings()
    started = time.monotonic()
    status = TrainingJob(section, settings, ds).wait()
    report = status.report
    print(f"\nthe lecture's run, 200,000 steps ({ds.name}):")
    if report is None or report.evaluation is None:
        print(f"  the worker's run did not finish: {status.state}: {status.message}")
        return
    _losses("reference solution in the worker", report.evaluation, report.steps_per_s,
            time.monotonic() - started)  # fmt: skip
    started = time.monotonic()
    result = run_reference(lecture_model(), ds, settings, lambda step: None)
    scores = result["evaluation"]
    evaluation = Evaluation(**scores)
    _losses("autograd", evaluation, result["steps_per_s"], time.monotonic() - started)
    print(f"  {'the lecture':34s} train {LECTURE[0]:.4f}   val {LECTURE[1]:.4f}")
    print(f"  samples (worker): {', '.join(report.evaluation.samples)}")


def _losses(label: str, evaluation, rate: float, seconds: float) -> None:
    train_loss, val_loss = evaluation.train_loss, evaluation.val_loss
    gap = max(abs(train_loss - LECTURE[0]), abs(val_loss - LECTURE[1]))
    print(f"  {label:34s} train {train_loss:.4f}   val {val_loss:.4f}   "
          f"(within {gap:.4f} of the lecture)   {rate:,.0f} steps/s, {seconds:.0f} s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--full", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    ds, section = dataset(), reference_section()
    speeds(ds, args.steps, args.rounds, section)
    if args.full:
        full(ds, section)


if __name__ == "__main__":
    main()
