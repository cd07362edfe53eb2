"""A fake Exercise 4 trainer for the page tests: canned checks, runs and references.

The page only renders what the trainer returns, so these fakes return the grader's own frozen
records; the section and the loop text come from the real grader (plain text, no torch run).
"""

from __future__ import annotations

from grader import Cmp
from grader.training.model import lecture_model
from grader.training.records import (
    Evaluation,
    GradCheck,
    GradRow,
    ReferenceStatus,
    TrainingReport,
    TrainingStatus,
    TrainSettings,
)
from grader.training.section import PARTS, compose, program

from .app_helpers import shipped_catalog

WRONG = "# fake: wrong"
SHAPES = [(27, 10), (30, 200), (200,), (200, 27), (27,), (1, 200), (1, 200)]
NAMES = ["dC", "dW1", "db1", "dW2", "db2", "dbngain", "dbnbias"]
SAMPLES = tuple(f"name{i}." for i in range(20))
AUTOGRAD_SAMPLES = tuple(f"auto{i}." for i in range(20))


def grad_check(wrong: str | None) -> GradCheck:
    """Return a check in which `wrong` (a gradient's name) fails, or all pass."""
    rows = []
    for name, shape in zip(NAMES, SHAPES, strict=True):
        if name == wrong:
            cmp = Cmp(str(shape), False, False, 0.5)
            message = f"`{name}` is inaccurate: max abs diff 5.0e-01 at (0, 0); tolerance 1e-08."
            rows.append(GradRow(name, "fail", message, cmp, shape))
        else:
            message = f"`{name}` looks good (max diff 1.0e-08)."
            rows.append(GradRow(name, "pass", message, Cmp(str(shape), False, True, 1e-8), shape))
    if wrong:
        message = f"`{wrong}` does not match autograd; training starts once all seven gradients do."
        return GradCheck(False, tuple(rows), wrong, message)
    message = "All seven gradients match autograd; training can start."
    return GradCheck(True, tuple(rows), None, message)


def report(state: str = "finished", settings: TrainSettings | None = None) -> TrainingReport:
    """Return a run's report: finished with an evaluation, else stopped or failed."""
    settings = settings or TrainSettings(steps=2000, decay_step=1000)
    evaluation = Evaluation(2.1234, 2.2345, SAMPLES) if state == "finished" else None
    messages = {
        "finished": "Training finished: 2,000 steps in 1.5 s.",
        "stopped": "Training stopped at step 700 of 2,000, as you asked.",
        "failed": "`loss` is nan at step 6, so training stopped. Hint: check the gradients.",
    }
    steps = 2000 if state == "finished" else 700
    curve = tuple(0.5 - i / 1000 for i in range(steps // settings.bucket))  # whole buckets done
    return TrainingReport(settings, state, messages[state], steps, 1.5, 1333.0, curve, evaluation)


def running(step: int = 500) -> TrainingStatus:
    """Return the status of a run a quarter of the way through."""
    return TrainingStatus("running", step, 2000, 1480.0, 1.0, (0.5, 0.45, 0.42))


def ended(state: str = "finished") -> TrainingStatus:
    """Return the status of a run that has ended."""
    done = report(state)
    steps, curve = done.steps_done, done.curve
    return TrainingStatus(state, steps, 2000, 1333.0, None, curve, done.message, done)


class FakeJob:
    """Stands in for a TrainingJob: a canned status; stop() records the call."""

    def __init__(self, status: TrainingStatus):
        self._status, self.stopped = status, False

    def status(self) -> TrainingStatus:
        return self._status

    def stop(self) -> None:
        self.stopped = True
        self._status = ended("stopped")

    def wait(self, timeout: float | None = None) -> TrainingStatus:
        self.waited = timeout
        return self._status


class FakeTrainer:
    """Stands in for grader.training.Trainer; `next_status` is what a started run reports."""

    def __init__(self):
        self.catalog = shipped_catalog()
        self.checked: list[str] = []
        self.started: list[tuple[str, TrainSettings]] = []
        self.next_status = running()
        self.reference_state = "done"

    def section(self, solved: dict[str, str]) -> str:
        starters = {i: self.catalog.get(i).starter for i, _ in PARTS}
        return compose(starters, solved)

    def program(self, settings: TrainSettings) -> tuple[str, str]:
        return program(settings, 27, 3, lecture_model().program())

    def check(self, code: str, settings: TrainSettings) -> GradCheck:
        self.checked.append(code)
        return grad_check("dW2" if WRONG in code else None)

    def start(self, code, settings, alive=None, on_finish=None) -> FakeJob:
        self.started.append((code, settings))
        self.alive, self.on_finish = alive, on_finish
        return FakeJob(self.next_status)

    def reference(self, settings: TrainSettings, start: bool = True) -> ReferenceStatus:
        if self.reference_state == "running":
            return ReferenceStatus("running", 1200, settings.steps)
        evaluation = Evaluation(2.1233, 2.2344, AUTOGRAD_SAMPLES)
        curve = tuple(0.5 - i / 990 for i in range(200))
        return ReferenceStatus("done", 2000, 2000, "", 1100.0, curve, evaluation)
