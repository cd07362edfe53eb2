"""The body of a training job, in the worker process: claim the row, train in the grader's
sandbox, stream the progress into the row, end it with the report.

The learner's code runs only in the grader's confined training process (grader/training/job.py,
grader/sandbox/training/), never in the worker's own. A thread per run (Beat) writes its
progress every second from the claim on, even while the trainer starts: each write is the
run's heartbeat and brings back the Stop flag that any replica may raise.

    >>> runner = Runner(store, Trainers(config, store), name="host:pid")
    >>> runner.run(run_id=7)      # returns once the run has ended and been recorded
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from app import wordlists
from app.worker.wire import record_of, report_fields

log = logging.getLogger("app.worker")
PROGRESS = 1.0  # seconds between progress writes (the heartbeat)


@dataclass(frozen=True)
class Owner:
    """The profile a run belongs to, as the store's calls need it."""

    id: int


class Trainers:
    """Exercise 4's trainers of this worker, one per dataset source, built on first use."""

    def __init__(self, config, store=None):
        self.config = config  # the app's configuration (app/config.py): where data is kept
        self.store = store  # where an uploaded word list is read when this machine lacks it
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

        config = self.config
        if source.startswith(wordlists.PREFIX):
            found = source.removeprefix(wordlists.PREFIX)
            if self.store is not None:
                found = wordlists.readable(self.store, config.uploads_dir, found)
            dataset = data.load_dataset(str(found))
        else:
            dataset = data.load_dataset(source, cache_dir=str(config.cache_dir))
        catalog = discover(config.exercises_dir or EXERCISES_DIR)
        return Trainer(dataset, config.data_dir / "training", catalog)


class Beat(threading.Thread):
    """The run's heartbeat, from claim to end: every PROGRESS seconds it writes the job's
    progress (step 0 while the trainer starts) and stops the job when the row says so."""

    def __init__(self, store, run_id: int):
        super().__init__(name=f"beat-{run_id}", daemon=True)
        self.store, self.run_id = store, run_id
        self.job, self.stopping = None, False
        self._ended = threading.Event()

    def attach(self, job) -> None:
        """Follow the job once it has started; stop it at once if Stop came first."""
        self.job = job
        if self.stopping:
            job.stop()

    def run(self) -> None:
        while not self._ended.wait(PROGRESS):
            job = self.job
            status = job.status() if job is not None else None
            try:
                stop = self._write(status)
            except Exception:  # the database is away for a moment: beat again later
                log.exception("run %s: progress not written", self.run_id)
                continue
            if stop and not self.stopping:
                self.stopping = True
                if self.job is not None:
                    self.job.stop()

    def _write(self, status) -> bool:
        """Write the progress so far; return whether the run must stop."""
        if status is None:
            return self.store.run_progress(self.run_id, 0, 0.0, ())
        elapsed = status.step / status.steps_per_s if status.steps_per_s else 0.0
        return self.store.run_progress(self.run_id, status.step, elapsed, status.curve)

    def end(self) -> None:
        """Stop beating (the run has ended)."""
        self._ended.set()
        self.join()


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
        beat = Beat(self.store, run_id)
        beat.start()
        try:
            report = self._train(run, beat)
        except Exception as err:  # a fault of the worker: the run must still end
            log.exception("run %s failed", run_id)
            report = self._fault(run, err)
        finally:
            beat.end()
        if not self.store.end_run(run_id, report.state, report_fields(report)):
            log.warning("run %s had been marked interrupted before it ended", run_id)
        elif report.state == "finished":
            self.store.record_run(Owner(run.profile_id), record_of(report, run.code, run.dataset))
        log.info("run %s ended: %s", run_id, report.state)

    def _train(self, run, beat: Beat):
        """Train in the sandbox until the run ends (its beat writes the progress and stops it
        when asked); return its report."""
        from grader.training import TrainingJob, TrainSettings

        trainer = self.trainers.get(run.dataset)
        settings = TrainSettings(**run.settings)
        language = trainer.catalog.course.language  # checked again before the run
        job = TrainingJob(
            run.code, settings, trainer.dataset, model=trainer.model, language=language
        )
        beat.attach(job)
        return job.wait().report

    def _fault(self, run, err: Exception):
        """Return the report of a run the worker itself failed to carry out."""
        from grader import feedback
        from grader.training import TrainingReport, TrainSettings

        log.error("run %s: %r", run.id, err)
        settings = TrainSettings(**run.settings)
        return TrainingReport(settings, "failed", feedback.GRADER_FAULT, run.step, 0.0, 0.0, ())
