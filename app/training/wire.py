"""A queued run's facts as the database keeps them, and back: the grader's report as JSON
fields, and the status the training page draws from a row (no sentence is parsed back).

    >>> report_of(report_fields(report)) == report
    >>> status_of(store.latest_run(me), position=2).state      # "queued"
"""

from __future__ import annotations

from dataclasses import asdict

from app.storage import QueuedRun, TrainingRun

INTERRUPTED, QUEUED = "interrupted", "queued"


def report_fields(report) -> dict:
    """Return a TrainingReport as plain JSON-ready fields."""
    return asdict(report)


def report_of(fields: dict):
    """Rebuild a TrainingReport from its fields."""
    from grader.sandbox import LearnerError
    from grader.training import Evaluation, LoopAdvice, TrainingReport, TrainSettings

    values = dict(fields)
    values["settings"] = TrainSettings(**values["settings"])
    values["curve"] = tuple(values["curve"])
    values["notes"] = tuple(values["notes"])
    if values["evaluation"] is not None:
        evaluation = values["evaluation"]
        values["evaluation"] = Evaluation(**evaluation | {"samples": tuple(evaluation["samples"])})
    if values["advice"] is not None:
        values["advice"] = LoopAdvice(**values["advice"])
    if values["error"] is not None:
        values["error"] = LearnerError(**values["error"])
    return TrainingReport(**values)


def status_of(run: QueuedRun):
    """Return the TrainingStatus the page draws for a run on the queue: a queued run is
    "starting"; an ended one carries its report (made here when the worker left none)."""
    from grader.training import TrainingStatus, TrainSettings

    settings = TrainSettings(**run.settings)
    rate = run.step / run.elapsed if run.elapsed > 0 else 0.0
    if run.active:
        state = "running" if run.state == "running" and run.step else "starting"
        left = (settings.steps - run.step) / rate if rate else None
        return TrainingStatus(state, run.step, settings.steps, rate, left, run.curve)
    report = report_of(run.report) if run.report else _unreported(run, settings, rate)
    return TrainingStatus(
        report.state, run.step, settings.steps, rate, None, run.curve, report.message, report
    )


def _unreported(run: QueuedRun, settings, rate: float):
    """Return the report of a run that ended without its worker's: stopped while queued, or
    interrupted (its worker died)."""
    from grader import feedback
    from grader.training import TrainingReport

    if run.state == INTERRUPTED:
        text = feedback.training_interrupted(run.step, settings.steps)
    else:
        text = feedback.training_stopped_queued()
    return TrainingReport(settings, run.state, text, run.step, run.elapsed, rate, run.curve)


def record_of(report, code: str, dataset: str) -> TrainingRun:
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
