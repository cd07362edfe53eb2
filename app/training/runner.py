"""The body of a training job, in the worker process: read the run's row, start the run through
the grader's one door (`Trainer.start`, as the local mode does), write its progress into the
row, end it with the report.

The learner's code runs only in the grader's confined training process (grader/training/job.py,
grader/sandbox/training/), never in the worker's own. A thread per run (Beat) writes its
progress every second and stops the trainer when procrastinate says the job must abort (Stop on
any replica, or the worker shutting down).

    >>> runner = Runner(store, Trainers(config, store), stale=30.0)
    >>> runner.run(context, run_id=7)   # returns once the run has ended and been recorded
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from procrastinate.exceptions import JobAborted
from procrastinate.job_context import AbortReason

import grader as grader_lib
from app.storage import wordlists
from app.training.queue import Queue
from app.training.wire import record_of, report_fields
from grader import feedback, training

if TYPE_CHECKING:
    from procrastinate import JobContext

    from app.config import AppConfig
    from app.storage import Store
    from app.training.queue import QueuedRun

log = logging.getLogger("app.training")
PROGRESS = 1.0  # seconds between progress writes


@dataclass(frozen=True)
class Owner:
    """The profile a run belongs to, as the store's calls need it."""

    id: int


class Trainers:
    """Exercise 4's trainers of this worker, one per dataset source, built on first use."""

    def __init__(self, config: AppConfig, store: Store | None = None):
        self.config = config  # the app's configuration (app/config/): where data is kept
        self.store = store  # where an uploaded word list is read when this machine lacks it
        self._built: dict[str, training.Trainer] = {}
        self._lock = threading.Lock()

    def get(self, source: str) -> training.Trainer:
        """Return the trainer for a dataset source ("default", "names" or "upload:<path>")."""
        with self._lock:
            if source not in self._built:
                self._built[source] = self._build(source)
            return self._built[source]

    def _build(self, source: str) -> training.Trainer:
        """Load the dataset and the course, and make their trainer."""
        config = self.config
        kept = self.store.word_lists if self.store else None
        dataset = wordlists.load_dataset(source, config.cache_dir, config.uploads_dir, kept)
        catalog = grader_lib.discover(config.exercises_dir or grader_lib.EXERCISES_DIR)
        return training.Trainer(dataset, config.data_dir / "training", catalog)


class Beat(threading.Thread):
    """The run's progress, from start to end: every PROGRESS seconds it writes the job's
    progress (step 0 while the trainer starts) and stops the job when it must abort."""

    def __init__(self, queue: Queue, run_id: int, context: JobContext):
        super().__init__(name=f"beat-{run_id}", daemon=True)
        self.queue, self.run_id, self.context = queue, run_id, context
        self.job: training.TrainingJob | None = None
        self.aborted: AbortReason | None = None
        self._ended = threading.Event()

    def attach(self, job: training.TrainingJob) -> None:
        """Follow the job once it has started; stop it at once if Stop came first."""
        self.job = job
        if self.aborted is not None:
            job.stop()

    def run(self) -> None:
        while not self._ended.wait(PROGRESS):
            job = self.job
            try:
                self._write(job.status() if job is not None else None)
            except Exception:  # the database is away for a moment: write again later
                log.exception("run %s: progress not written", self.run_id)
            if self.aborted is None and self.context.should_abort():
                self.aborted = self.context.abort_reason()
                if self.job is not None:
                    self.job.stop()

    def _write(self, status: training.TrainingStatus | None) -> None:
        """Write the progress so far."""
        if status is None:
            return self.queue.progress(self.run_id, 0, 0.0, ())
        elapsed = status.step / status.steps_per_s if status.steps_per_s else 0.0
        return self.queue.progress(self.run_id, status.step, elapsed, status.curve)

    def end(self) -> None:
        """Stop beating (the run has ended)."""
        self._ended.set()
        self.join()


class Runner:
    """Runs training jobs: one call per job, any number of calls at once (one per thread)."""

    def __init__(self, store: Store, trainers: Trainers, stale: float):
        self.store, self.trainers = store, trainers
        self.queue = Queue(store, stale)

    def run(self, context: JobContext, run_id: int) -> None:
        """Run one queued run to its end; raise JobAborted when it was stopped (procrastinate
        then records its job as aborted). A worker stopping under a run leaves no report: the
        run reads as interrupted."""
        run = self.queue.run(run_id)
        if run is None or run.job_id != context.job.id or run.report is not None:
            log.info("run %s is not this job's to train (job %s)", run_id, context.job.id)
            return
        log.info("run %s of profile %s started", run_id, run.profile_id)
        beat = Beat(self.queue, run_id, context)
        beat.start()
        try:
            report = self._train(run, beat)
        except Exception as err:  # a fault of the worker: the run must still end
            log.exception("run %s failed", run_id)
            report = self._fault(run, err)
        finally:
            beat.end()
        if beat.aborted == AbortReason.SHUTDOWN:
            raise JobAborted(f"run {run_id}: the worker is stopping")
        self._end(run, report)
        if beat.aborted is not None:
            raise JobAborted(f"run {run_id} was stopped")

    def _train(self, run: QueuedRun, beat: Beat) -> training.TrainingReport:
        """Train in the sandbox until the run ends (its beat writes the progress and stops it
        when asked); return its report."""
        trainer = self.trainers.get(run.dataset)
        job = trainer.start(run.code, training.TrainSettings(**run.settings))
        beat.attach(job)
        return job.wait().report

    def _end(self, run: QueuedRun, report: training.TrainingReport) -> None:
        """Record the learner's run when it finished, then the report in the run's row (in
        this order: a page that reads the row as finished finds the run in their history)."""
        if report.state == "finished":
            self.store.runs.record_run(
                Owner(run.profile_id), record_of(report, run.code, run.dataset)
            )
        if not self.queue.end(run.id, report_fields(report)):
            log.warning("run %s had a report already", run.id)
        log.info("run %s ended: %s", run.id, report.state)

    def _fault(self, run: QueuedRun, err: Exception) -> training.TrainingReport:
        """Return the report of a run the worker itself failed to carry out."""
        log.error("run %s: %r", run.id, err)
        settings = training.TrainSettings(**run.settings)
        return training.TrainingReport(
            settings, "failed", feedback.GRADER_FAULT, run.step, 0.0, 0.0, ()
        )
