"""One Exercise 4 training run: a confined worker streaming metrics, followed by a thread.

The worker (grader/sandbox/training/stream.py) trains; this thread folds its frames into a
status, stops it when asked, when its session has gone, or at exit, and afterwards evaluates the
returned parameters here, in the trusted process.

    >>> job = TrainingJob(code, settings, dataset)
    >>> job.status().step        # progress, steps/s, time left, the loss curve so far
    >>> job.stop()               # the worker's process group is killed at once
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import torch

from grader.course import rules
from grader.feedback import voice as feedback
from grader.grading import checks
from grader.language import LANGUAGE, Language
from grader.sandbox import CaseOutcome, Limits
from grader.sandbox.training import (
    Done,
    Failed,
    Internal,
    Metrics,
    Params,
    ProtocolError,
    Stream,
    StreamFailure,
    StreamRun,
    TrainStream,
    budget,
    from_cases,
    judge,
    message,
    pack,
)
from grader.training import evaluate, section
from grader.training.model import Model, lecture_model
from grader.training.records import TrainingReport, TrainingStatus, TrainSettings

log = logging.getLogger("grader.training")
MAX_RUNS = 2  # training runs at once in this process
POLL = 0.5  # seconds between checks on the session and on stop requests
GRACE = 15.0  # seconds a session may be disconnected (a reconnect) before its run is stopped
SLOW_RATE, MARGIN = 400.0, 180.0  # steps/s allowed for (the lecture's dC loop), extra seconds
MEMORY = 3 * 1024**3
_live: set[TrainingJob] = set()
_announced: list[bool] = []
_live_lock = threading.Lock()


def _refused(code: str, language: Language) -> str:
    """Say why a section cannot run (a syntax error, a construct outside the course's exercise
    language: the gradient check says so first), or return ""."""
    source = checks.screen(code, language)
    if source.unparsed is not None:
        return checks.parse_message(source.unparsed)
    return checks.refused(source.outside).message if source.outside is not None else ""


def limits_for(settings: TrainSettings) -> Limits:
    """Return limits suited to minutes of training: the expected time and a few minutes more."""
    cpu = settings.steps / SLOW_RATE + MARGIN
    return Limits(cpu_seconds=cpu, wall_seconds=cpu + 60, memory_bytes=MEMORY)


@dataclass
class _Ending:
    """What the stream said about how the run ended."""

    failed: Failed | None = None
    params: Params | None = None
    stdout: str = ""
    internal: str = ""
    fault: str = ""


class TrainingJob:
    """A training run: started at once, followed by a thread, stopped at will."""

    def __init__(
        self, code: str, settings: TrainSettings, dataset, alive=None, on_finish=None, model=None,
        language: Language = LANGUAGE,
    ):  # fmt: skip
        self.code, self.settings, self.dataset = code, settings, dataset
        self.model: Model = model or lecture_model()
        self._alive: Callable[[], bool] = alive or (lambda: True)
        self._on_finish = on_finish
        self._lock, self._done = threading.Lock(), threading.Event()
        self._state, self._stop, self._report = "starting", "", None
        self._losses, self._step, self._elapsed = torch.empty(settings.steps), 0, 0.0
        self._wire = settings.wire(dataset.vocab_size, dataset.block_size)
        self._shapes = self.model.param_shapes(self._wire)
        self.limits = limits_for(settings)
        self._run: StreamRun | None = None
        self.exit_report: dict = {}  # how the worker ended, as its trainer reported it
        if refused := _refused(code, language):  # checked again here: a queued run's worker
            self._end(self._report_of("failed", refused))
            return
        if not _admit(self):
            self._end(self._report_of("failed", feedback.training_busy(MAX_RUNS)))
            return
        size = budget(self._wire, self._shapes, self.limits.output_bytes)
        self._run = StreamRun(self._job(), self.limits, size)
        threading.Thread(target=self._follow, name="training", daemon=True).start()

    def _job(self) -> tuple[dict, list]:
        """Return the worker's payload: the code, the loop's program, settings, training split."""
        Xtr, Ytr = self.dataset.Xtr, self.dataset.Ytr
        header = {"code": self.code, "settings": self._wire}
        header["program"] = asdict(self.model.program())
        header["output_bytes"] = self.limits.output_bytes
        return header, [pack({"Xtr": Xtr, "Ytr": Ytr})]

    @property
    def pid(self) -> int | None:
        """Return the training process's pid (the worker is its child), if it started."""
        return self._run.pid if self._run else None

    def status(self) -> TrainingStatus:
        """Return where the run is: state, step, speed, time left and the loss curve so far."""
        with self._lock:
            step, elapsed, state = self._step, self._elapsed, self._state
            curve = evaluate.curve(self._losses, step, self.settings.bucket)
        rate = step / elapsed if elapsed > 0 else 0.0  # read under the lock, with the step
        left = (self.settings.steps - step) / rate if rate and state == "running" else None
        report = self._report
        text = report.message if report else ""
        return TrainingStatus(state, step, self.settings.steps, rate, left, curve, text, report)

    def stop(self, reason: str = "user") -> None:
        """Kill the worker's process group now; the run ends as stopped."""
        with self._lock:
            if self._done.is_set() or self._stop:
                return
            self._stop = reason
        if self._run is not None:
            self._run.stop()

    def wait(self, timeout: float | None = None) -> TrainingStatus:
        """Wait until the run has ended and been evaluated (or timeout); return the status."""
        self._done.wait(timeout)
        return self.status()

    def _follow(self) -> None:
        """Read the worker's frames until it ends, then conclude; never raises."""
        ending = _Ending()
        try:
            self._run.launch()
            _announce(self._run.layers)
            with self._lock:
                self._state = "running" if not self._stop else self._state
            self._read(TrainStream(self._wire, self._shapes, self.limits.output_bytes), ending)
        except (StreamFailure, ProtocolError, ValueError, TimeoutError, OSError) as e:
            ending.fault = repr(e)
            self._run.stop()
        except Exception as e:  # a fault of the grader itself; the run must still end
            log.exception("training run failed")
            ending.fault = repr(e)
            self._run.stop()
        exit_report = self.exit_report = self._run.finish()
        try:
            report = self._conclude(ending, exit_report)
        except Exception as e:
            log.exception("concluding a training run failed")
            report = self._report_of("failed", feedback.GRADER_FAULT, log_text=repr(e))
        self._end(report)

    def _read(self, stream: TrainStream, ending: _Ending) -> None:
        """Fold frames into the status until the stream ends or the run must stop."""
        gone_since = None
        while not self._stop:
            gone_since = None if self._alive() else (gone_since or time.monotonic())
            if gone_since and time.monotonic() - gone_since > GRACE:
                self.stop("session")
                return
            try:
                frame = self._run.next_frame(POLL)
            except EOFError:
                return
            if frame is not None:
                self._apply(stream.accept(frame), ending)

    def _apply(self, event, ending: _Ending) -> None:
        """Record one event of the stream."""
        if isinstance(event, Metrics):
            with self._lock:
                self._losses[self._step : event.step] = event.losses
                self._step, self._elapsed = event.step, event.elapsed
        elif isinstance(event, Failed):
            ending.failed = event
        elif isinstance(event, Params):
            ending.params = event
        elif isinstance(event, Done):
            ending.stdout = event.stdout
        elif isinstance(event, Internal):
            ending.internal = event.log

    def _conclude(self, ending: _Ending, exit_report: dict) -> TrainingReport:
        """Decide how the run ended; evaluate the trained model if it finished."""
        step, steps = self._step, self.settings.steps
        if self._stop == "user":
            return self._report_of("stopped", feedback.training_stopped(step, steps))
        if self._stop == "session":
            return self._report_of("stopped", feedback.training_session_ended(step))
        if ending.fault or ending.internal:
            text = ending.fault or ending.internal
            return self._report_of("failed", feedback.GRADER_FAULT, log_text=text)
        if ending.params is not None:
            return self._finished(ending)
        if ending.failed is not None:
            return self._failed(ending)
        verdict, internal = self._verdict(exit_report)
        return self._report_of("failed", verdict, log_text=str(exit_report) if internal else "")

    def _finished(self, ending: _Ending) -> TrainingReport:
        """Evaluate the returned parameters here, and measure a dC loop against index_add_."""
        params, seed = ending.params.tensors, self.settings.seed
        evaluation = evaluate.evaluate(self.model, params, self.dataset, seed)
        notes, advice = [], None
        if evaluation is None:
            notes.append(feedback.model_not_finite())
        tree, rate = rules.parse(self.code), self._rate()
        line = None if isinstance(tree, rules.Problem) else section.loop_into(tree, "dC")
        if line is not None and rate > 0:
            advice = a = evaluate.advise(self.model, line, self.settings, self.dataset, rate)
            notes.append(feedback.loop_advice(line, a.loop_ms, a.index_add_ms, rate, a.projected))
        text = feedback.training_finished(self._step, self._elapsed)
        return self._report_of(
            "finished", text, evaluation=evaluation, advice=advice, notes=tuple(notes),
            stdout=ending.stdout,
        )  # fmt: skip

    def _failed(self, ending: _Ending) -> TrainingReport:
        """Explain an early stop: the learner's exception, a non-finite loss or a bad gradient."""
        failed = ending.failed
        if failed.reason == "nonfinite":
            return self._report_of("failed", feedback.nonfinite_loss(failed.detail, failed.step))
        if failed.reason == "gradient":
            text = feedback.training_bad_gradient(failed.detail, failed.step)
            return self._report_of("failed", text)
        err = failed.error
        status = from_cases([CaseOutcome("train", err, {}, "")])
        if status != "ok":
            return self._report_of("failed", message(status, self.limits), stdout=ending.stdout)
        text = feedback.training_raised(err.type, err.line, failed.step)
        return self._report_of("failed", text, stdout=ending.stdout, error=err)

    def _verdict(self, exit_report: dict) -> tuple[str, bool]:
        """Say why the worker ended without a word: a limit, a crash or a forbidden call; and
        whether it was the grader's own fault."""
        status, text, _ = judge(exit_report, Stream(ready=True), self.limits)
        if status in ("cpu_limit", "wall_limit"):
            limit = self.limits.cpu_seconds if status == "cpu_limit" else self.limits.wall_seconds
            return feedback.training_too_slow(limit, self._rate(), self.settings.steps), False
        internal = status == "internal"
        return (feedback.GRADER_FAULT if internal else text), internal

    def _rate(self) -> float:
        """Return the run's steps/s so far, by the worker's own clock."""
        return self._step / self._elapsed if self._elapsed > 0 else 0.0

    def _report_of(self, state: str, text: str, log_text: str = "", **extra) -> TrainingReport:
        """Build the report of this run as it stands; `extra` sets its optional fields."""
        if log_text:
            log.error("training run: %s", log_text)
        curve = evaluate.curve(self._losses, self._step, self.settings.bucket)
        return TrainingReport(
            self.settings, state, text, self._step, self._elapsed, self._rate(), curve, **extra
        )

    def _end(self, report: TrainingReport) -> None:
        """Hand a finished run to on_finish, then publish the report and free the slot."""
        if report.state == "finished" and self._on_finish is not None:
            try:
                self._on_finish(report)
            except Exception:
                log.exception("saving a finished training run failed")
        with self._lock:
            self._report, self._state = report, report.state
        with _live_lock:
            _live.discard(self)
        self._done.set()


def _announce(layers: dict[str, str]) -> None:
    """Log, once per process, the sandbox layers training runs under (warn of missing ones)."""
    if _announced:
        return
    _announced.append(True)
    for name, state in layers.items():
        (log.info if state == "on" else log.warning)("training layer %s: %s", name, state)


def _admit(job: TrainingJob) -> bool:
    """Take a training slot for job, unless MAX_RUNS runs are going."""
    with _live_lock:
        if len(_live) >= MAX_RUNS:
            return False
        _live.add(job)
        return True


@atexit.register
def _stop_all() -> None:
    """Leave no training process behind when this process exits."""
    with _live_lock:
        jobs = list(_live)
    for job in jobs:
        if job._run is not None:
            job._run.kill()
