"""A run's facts as the database keeps them, and back: the grader's report as JSON fields, the
status the training page draws from a queued run, and what the store keeps of a finished run
(no sentence is parsed back).

    >>> report_of(report_fields(report)) == report
    True
    >>> status_of(queue.latest(me)).state      # "starting" while it waits for a worker
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from app.storage import TrainingRun
from app.training.tasks import INTERRUPTED, RUNNING
from grader import feedback, sandbox, training

if TYPE_CHECKING:
    from app.training.queue import QueuedRun


def report_fields(report: training.TrainingReport) -> dict:
    """Return a TrainingReport as plain JSON-ready fields."""
    return asdict(report)


def report_of(fields: dict) -> training.TrainingReport:
    """Rebuild a TrainingReport from its fields."""
    values = dict(fields)
    values["settings"] = training.TrainSettings(**values["settings"])
    values["curve"] = tuple(values["curve"])
    values["notes"] = tuple(values["notes"])
    if values["evaluation"] is not None:
        evaluation = values["evaluation"]
        values["evaluation"] = training.Evaluation(
            **evaluation | {"samples": tuple(evaluation["samples"])}
        )
    if values["advice"] is not None:
        values["advice"] = training.LoopAdvice(**values["advice"])
    if values["error"] is not None:
        values["error"] = sandbox.LearnerError(**values["error"])
    return training.TrainingReport(**values)


def status_of(run: QueuedRun) -> training.TrainingStatus:
    """Return the TrainingStatus the page draws for a run on the queue: a waiting run is
    "starting"; an ended one carries its report (made here when the worker left none)."""
    settings = training.TrainSettings(**run.settings)
    rate = run.step / run.elapsed if run.elapsed > 0 else 0.0
    if run.active:
        state = "running" if run.state == RUNNING and run.step else "starting"
        left = (settings.steps - run.step) / rate if rate else None
        return training.TrainingStatus(state, run.step, settings.steps, rate, left, run.curve)
    report = report_of(run.report) if run.report else _unreported(run, settings, rate)
    return training.TrainingStatus(
        report.state, run.step, settings.steps, rate, None, run.curve, report.message, report
    )


def _unreported(
    run: QueuedRun, settings: training.TrainSettings, rate: float
) -> training.TrainingReport:
    """Return the report of a run that ended without its worker's: stopped while it waited, or
    interrupted (its worker died, or was stopped under it)."""
    if run.state == INTERRUPTED:
        text = feedback.training_interrupted(run.step, settings.steps)
    else:
        text = feedback.training_stopped_queued()
    return training.TrainingReport(
        settings, run.state, text, run.step, run.elapsed, rate, run.curve
    )


def record_of(report: training.TrainingReport, code: str, dataset: str) -> TrainingRun:
    """Return what the store keeps of a finished run's report."""
    evaluation = report.evaluation
    return TrainingRun(
        settings=asdict(report.settings),
        train_loss=evaluation.train_loss if evaluation else None,
        val_loss=evaluation.val_loss if evaluation else None,
        samples=evaluation.samples if evaluation else (),
        steps_per_s=report.steps_per_s,
        elapsed=report.elapsed,
        curve=report.curve,
        dataset=dataset,
        code=code,
    )
