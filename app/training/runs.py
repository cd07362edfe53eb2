"""Exercise 4's runs as a page sees them: one protocol, `Run` (status, stop, wait, position), and
where the runs train, chosen once by the mode (`runs()`).

The local mode trains in this server process (`LocalRuns`): a run belongs to the profile, not
to the page or the tab; every session that shows the training page attaches to it, so a reload
or a second tab sees the running run with its live progress, and Stop works from any of them.
The run goes on while at least one attached session is connected (the grader stops a run whose
`alive()` has said no for a while) and the grader kills whatever is left at exit. Starting
another run stops it. A finished run is saved with the learner's profile from the grader's
thread, even if the learner has moved to another page.

The classroom mode queues the run for a training worker (`WorkerRuns`: queue.py, and the worker
of __main__.py): the page writes the run and its job into the database, and from then on reads
the run back from there, so closing the tab, a reload on another replica and Stop from any of
them all work.

    >>> from app.training import runs
    >>> checked = runs.start(trainer, code, settings)   # the gradients checked here, then a run
    >>> run = runs.current()
    >>> run.status().step, run.position                  # position: its place in the queue
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Protocol

import streamlit as st

from app import services, session
from app.classroom import quotas
from app.training.queue import Queue, QueuedRun
from app.training.wire import record_of, status_of

if TYPE_CHECKING:
    from app.storage import Profile
    from grader.training import (
        GradCheck,
        Trainer,
        TrainingJob,
        TrainingReport,
        TrainingStatus,
        TrainSettings,
    )

JOB_KEY = "training:job"  # the run this session is attached to (the local mode)
REFUSED = "training:refused"  # a Start the learner's limit of runs refused (quotas.Refusal)
STOP_WAIT = 5.0  # seconds a new run waits for the one it replaces to free its slot


class Run(Protocol):
    """A training run, wherever it trains: what the training page asks of it."""

    @property
    def position(self) -> int:
        """Return the run's place in the queue (1: next), 0 once it trains or has ended."""

    def status(self) -> TrainingStatus:
        """Return where the run is: state, step, speed, time left, the loss curve so far."""

    def stop(self) -> None:
        """Ask the run to stop; it ends as stopped."""

    def wait(self, timeout: float | None = None) -> TrainingStatus:
        """Return the status once the run has ended, or after timeout seconds."""


class Runs(Protocol):
    """Where a server's runs train: what starts one and finds the learner's."""

    def current(self) -> Run | None:
        """Return the learner's run (going or ended), if any."""

    def start(self, trainer: Trainer, code: str, settings: TrainSettings) -> None:
        """Start a run of a section whose gradients have been checked."""

    def states(self) -> dict[str, int]:
        """Return how many runs are in each state (the metrics)."""


def runs() -> Runs:
    """Return where this server's runs train, by its mode: the one place that chooses."""
    return MODES[services.config().mode]()


def current() -> Run | None:
    """Return the learner's training run (running or ended)."""
    return runs().current()


def states() -> dict[str, int]:
    """Return how many runs are in each state: this process's (the local mode: each learner's
    latest run) or the task queue's (the classroom: every run of the class)."""
    return runs().states()


def start(trainer: Trainer, code: str, settings: TrainSettings) -> GradCheck:
    """Check the section's seven gradients here; start a run if they match; return the check."""
    checked = trainer.check(code, settings)
    if checked.passed:
        runs().start(trainer, code, settings)
    return checked


@dataclass(frozen=True)
class LocalRun:
    """A run training in this process: the grader's job (never waiting in a queue)."""

    job: TrainingJob
    position: int = 0

    def status(self) -> TrainingStatus:
        return self.job.status()

    def stop(self) -> None:
        self.job.stop()

    def wait(self, timeout: float | None = None) -> TrainingStatus:
        return self.job.wait(timeout)


@dataclass
class Attached:
    """A profile's run and the sessions that have shown it."""

    run: LocalRun | None = None
    sessions: frozenset[str] = field(default_factory=frozenset)

    def alive(self) -> bool:
        """Return whether any attached session is still connected to the server."""
        return any(_connected(s) for s in self.sessions)


class LocalRuns:
    """Runs in this server process, one per profile, kept in a registry of the server's."""

    def current(self) -> LocalRun | None:
        """Return the profile's run, attaching this session to it."""
        entry = _registry().get(session.profile().id)
        if entry is None or entry.run is None:
            st.session_state.pop(JOB_KEY, None)
            return None
        entry.sessions = entry.sessions | {_session_id()}
        st.session_state[JOB_KEY] = entry.run
        return entry.run

    def start(self, trainer: Trainer, code: str, settings: TrainSettings) -> None:
        """Stop the profile's run, then start this one in a confined worker."""
        previous = self.current()
        if previous is not None:
            previous.stop()
            previous.wait(STOP_WAIT)  # so that its slot is free before the new run asks for one
        profile = session.profile()
        entry = Attached(sessions=frozenset({_session_id()}))
        on_finish = saver(code, profile, session.dataset_source(), trainer, settings)
        entry.run = LocalRun(trainer.start(code, settings, entry.alive, on_finish))
        _registry()[profile.id] = entry
        st.session_state[JOB_KEY] = entry.run

    def states(self) -> dict[str, int]:
        """Return how many of the learners' latest runs in this process are in each state."""
        found = [entry.run.status().state for entry in list(_registry().values()) if entry.run]
        return {state: found.count(state) for state in set(found)}


@dataclass
class WorkerRun:
    """A run on the task queue, as its row and its job stood when last read."""

    queue: Queue
    run: QueuedRun

    @property
    def position(self) -> int:
        return self.queue.position(self.run)

    def status(self) -> TrainingStatus:
        return status_of(self.run)

    def stop(self) -> None:
        """Cancel the run's job, or ask its worker to abort it (from any replica)."""
        self.queue.stop(self.run)

    def wait(self, timeout: float | None = None) -> TrainingStatus:
        """Read the run again (it ends on its worker: nothing to wait for here)."""
        self.run = self.queue.run(self.run.id) or self.run
        return self.status()


class WorkerRuns:
    """Runs on the task queue, trained by the classroom's workers (`python -m app.training`)."""

    def __init__(self) -> None:
        self.queue = Queue(services.store(), services.config().worker_stale)

    def current(self) -> WorkerRun | None:
        """Return the profile's newest run on the queue."""
        run = self.queue.latest(session.profile())
        return None if run is None else WorkerRun(self.queue, run)

    def start(self, trainer: Trainer, code: str, settings: TrainSettings) -> None:
        """Queue the run for a worker, unless the learner has as many queued or running as
        they may (`NINJA_QUOTA_RUNS`): then keep the refusal for the page (REFUSED)."""
        most, profile = services.config().quota_runs, session.profile()
        if self.queue.enqueue(profile, code, asdict(settings), session.dataset_source(), most):
            return
        st.session_state[REFUSED] = quotas.runs_refusal(most, most)
        quotas.Quotas(services.store()).hit(profile.id, quotas.RUNS)

    def states(self) -> dict[str, int]:
        """Return how many runs of the class are in each state."""
        return self.queue.states()


MODES: dict[str, Callable[[], Runs]] = {"local": LocalRuns, "classroom": WorkerRuns}


@st.cache_resource(show_spinner=False)
def _runs_of(url: str) -> dict[int, Attached]:
    """One registry per store URL (profile ids are per store)."""
    return {}


def _registry() -> dict[int, Attached]:
    """Return the server's local runs by profile id, for the configured store."""
    return _runs_of(services.config().database_url)


def _session_id() -> str:
    """Return this browser session's id ("" without a server, as in tests)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else ""


def _connected(session_id: str) -> bool:
    """Return whether a session is connected; without a server (a test) every one is."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return True
    return Runtime.instance().is_active_session(session_id)


def saver(
    code: str, profile: Profile, dataset: str, trainer: Trainer, settings: TrainSettings
) -> Callable[[TrainingReport], None]:
    """Return what a finished local run does: save its report with the profile, then start
    training the autograd reference it is compared with."""
    store = services.store()

    def finished(report: TrainingReport) -> None:
        store.runs.record_run(profile, record_of(report, code, dataset))
        trainer.reference(settings)

    return finished
