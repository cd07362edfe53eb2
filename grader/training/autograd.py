"""The autograd-trained reference: the learner's loop with `loss.backward()` as the backward pass.

Trusted code: the same loop (grader/sandbox/training/loop.py), program (INIT and STEP, derived
from the lecture's MLP by grader/training/model.py), schedule and update as the learner's run,
so both start from the same parameters and see the same batches. `python -m
grader.training.autograd JOB OUT` trains one configuration in a plain subprocess (references.py
starts it, the job file carries the model): it prints a `step N` line as it goes, writes the
result to OUT as JSON, and exits if its parent goes away (end of file on its stdin).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import torch

from grader.sandbox.training import Ended, Program, prepare, train
from grader.training.evaluate import curve, evaluate
from grader.training.model import Model
from grader.training.records import TrainSettings

VERSION = 1  # bump when the loop or the result changes: old cached results are then ignored


def autograd_backward(ns: dict, params: dict) -> list[torch.Tensor]:
    """Return the gradients from loss.backward() (the lecture's loop before Exercise 4)."""
    for p in params.values():
        p.grad = None
    ns["loss"].backward()
    return [p.grad for p in params.values()]


def train_autograd(program: Program, settings: dict, Xtr, Ytr, report) -> tuple[dict, Ended]:
    """Train with autograd from the program's INIT; return the parameters and how it ended."""
    ns = prepare(program, settings, Xtr, Ytr)
    with torch.enable_grad():
        for name in program.params:
            ns[name].requires_grad_(True)
        ended = train(program, ns, settings, autograd_backward, report)
    return {name: ns[name].detach() for name in program.params}, ended


def run_reference(
    model: Model, dataset, settings: TrainSettings, progress: Callable[[int], None]
) -> dict:
    """Train the reference for one configuration and evaluate it; return JSON-ready data."""
    losses = torch.empty(settings.steps)
    timing = {"step": 0, "elapsed": 0.0}

    def report(step: int, elapsed: float, pending) -> None:
        losses[timing["step"] : step] = torch.tensor(pending, dtype=torch.float32)
        timing.update(step=step, elapsed=elapsed)
        progress(step)

    wire = settings.wire(dataset.vocab_size, dataset.block_size)
    params, ended = train_autograd(model.program(), wire, dataset.Xtr, dataset.Ytr, report)
    if ended.reason is not None:
        raise RuntimeError(f"the autograd reference stopped at step {ended.step}: {ended}")
    evaluation = evaluate(model, params, dataset, settings.seed)
    if evaluation is None:
        raise RuntimeError("the autograd reference ended with non-finite parameters")
    return {
        "version": VERSION,
        "settings": asdict(settings),
        "steps_per_s": settings.steps / max(timing["elapsed"], 1e-9),
        "curve": list(curve(losses, settings.steps, settings.bucket)),
        "evaluation": asdict(evaluation),
    }


def _exit_with_parent() -> None:
    """Exit at once when stdin reaches its end: the parent has gone away.

    It reads the raw descriptor: a thread blocked in sys.stdin would hold its lock while the
    interpreter shuts down, which aborts the process.
    """
    while os.read(0, 4096):
        pass
    os._exit(1)


def main(argv: list[str]) -> None:
    """Train the configuration in the JOB file and write the result to OUT, atomically."""
    import data  # only the subprocess rebuilds a dataset from words

    job_path, out_path = Path(argv[0]), Path(argv[1])
    threading.Thread(target=_exit_with_parent, daemon=True).start()
    torch.set_num_threads(1)
    job = json.loads(job_path.read_text(encoding="utf-8"))
    job_path.unlink()
    dataset = data.build_dataset(job["words"], job["block_size"], name=job["name"])
    if dataset.fingerprint != job["fingerprint"]:
        raise SystemExit("the rebuilt dataset does not match the parent's")
    started = time.monotonic()
    model = Model(**{part: tuple(lines) for part, lines in job["model"].items()})
    result = run_reference(model, dataset, TrainSettings(**job["settings"]), _print_step)
    result["elapsed"] = time.monotonic() - started
    partial = out_path.with_suffix(".partial")
    partial.write_text(json.dumps(result), encoding="utf-8")
    os.replace(partial, out_path)
    print("done", flush=True)


def _print_step(step: int) -> None:
    print(f"step {step}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
