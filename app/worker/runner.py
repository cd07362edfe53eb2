"""The body of a training job, in the worker process: claim the row, train in the grader's
sandbox, stream the progress into the row, end it with the report.

The learner's code runs only in the grader's confined training process (grader/training/job.py,
grader/sandbox/training/), never in the worker's own. Each progress write is the run's
heartbeat and brings back the Stop flag that any replica may raise.

    >>> runner = Runner(store, Trainers(cache_dir, data_dir, exercises), name="host:pid")
    >>> runner.run(run_id=7)      # returns once the run has ended and been recorded
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from app.worker.wire import record_of, report_fields

log = logging.getLogger("app.worker")
PROGRESS = 1.0  # seconds between progress writes (the heartbeat)


@dataclass(frozen=True)
class Owner:
    """The profile a run belongs to, as the store's calls need it."""

    id: int


class Trainers:
    """Exercise 4's trainers of this worker, one per dataset source, built on first use."""

    def __init__(self, cache_dir: Path, data_dir: Path, exercises: Path | None):
        self.cache_dir, self.data_dir, self.exercises = cache_dir, data_dir, exercises
        self._built: dict[str, object] = {}
        self._lock = threading.Lock()

    def get(self, source: str):
        """Return the trainer for a dataset source ("default", "names" or "upload:<path>")."""
        with self._lock:
            if source not in self._built:
                self._built[source] = self._build(source)
            return self._built[source]

    def _build(self, source: str):
        """Load the dataset and the course, and make their trainer."""
        import data
        from grader import EXERCISES_DIR, discover
        from grader.training import Trainer

        if source.startswith("upload:"):
            dataset = data.load_dataset(source.removeprefix("upload:"))
        else:
            dataset = data.load_dataset(source, cache_dir=str(self.cache_dir))
        catalog = discover(self.exercises or EXERCISES_DIR)
        return Trainer(dataset, self.data_dir / "training", catalog)


class Runner:
    """Runs training jobs: one call per job, any number of calls at once (one per thread)."""

    def __init__(self, store, trainers: Trainers, name: str):
        self.store, self.trainers, self.name = store, trainers, name

    def run(self, run_id: int) -> None:
        """Run one queued run to its end; a run no longer queued (stopped) is left alone."""
        run = self.store.claim_run(run_id, self.name)
        if run is None:
            log.info("run %s is no longer queued", run_id)
            return
        log.info("run %s of profile %s started", run_id, run.profile_id)
        try:
            report = self._train(run)
        except Exception as err:  # a fault of the worker: the run must still end
            log.exception("run %s failed", run_id)
            report = self._fault(run, err)
        if not self.store.end_run(run_id, report.state, report_fields(report)):
            log.warning("run %s had been marked interrupted before it ended", run_id)
        elif report.state == "finished":
            self.store.record_run(Owner(run.profile_id), record_of(report, run.code, run.dataset))
        log.info("run %s ended: %s", run_id, report.state)

    def _train(self, run):
        """Train in the sandbox, writing progress until the run ends; return its report."""
        from grader.training import TrainingJob, TrainSettings

        trainer = self.trainers.get(run.dataset)
        settings = TrainSettings(**run.settings)
        job = TrainingJob(run.code, settings, trainer.dataset, model=trainer.model)
        status = job.wait(0)
        while status.active:
            elapsed = status.step / status.steps_per_s if status.steps_per_s else 0.0
            if self.store.run_progress(run.id, status.step, elapsed, status.curve):
                job.stop()
            status = job.wait(PROGRESS)
        return status.report

    def _fault(self, run, err: Exception):
        """Return the report of a run the worker itself failed to carry out."""
        from grader import feedback
        from grader.training import TrainingReport, TrainSettings

        log.error("run %s: %r", run.id, err)
        settings = TrainSettings(**run.settings)
        return TrainingReport(settings, "failed", feedback.GRADER_FAULT, run.step, 0.0, 0.0, ())
