"""The learner's training run: it belongs to the profile, not to the page or the tab.

A run is kept in a registry of the server process, by profile. Every session that shows the
training page attaches to it: a reload or a second tab sees the running job with its live
progress, and Stop works from any of them. The run goes on while at least one attached session
is connected (the grader stops a run whose `alive()` has said no for a while) and the grader
kills whatever is left at exit. Starting another run stops it. A finished run is saved with the
learner's profile from the grader's thread, even if the learner has moved to another page.

In the classroom mode a run is a job on the task queue instead (app/worker/): Start checks the
gradients here and queues the run; a worker trains it and streams its progress into the
database, where every replica reads it (`QueuedJob`), so closing the tab, a reload on another
replica and Stop from any of them all work. A run whose worker stopped answering is marked
interrupted when read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import streamlit as st

from app import classroom, services, session
from app.storage import QueuedRun
from app.worker import defer, record_of, stale_seconds, status_of

JOB_KEY = "training:job"


@dataclass
class Attached:
    """A profile's run and the sessions that have shown it (replaced whole, never mutated)."""

    job: object = None
    sessions: frozenset = field(default_factory=frozenset)

    def alive(self) -> bool:
        """Return whether any attached session is still connected to the server."""
        return any(_connected(s) for s in self.sessions)


class QueuedJob:
    """A run on the task queue, as its row stood when read: what the page asks of a job."""

    def __init__(self, store, run: QueuedRun):
        self.store, self.run = store, run

    @property
    def position(self) -> int:
        """Return the run's place in the queue (1: next), 0 once a worker has it."""
        return self.store.queue_position(self.run.id) if self.run.state == "queued" else 0

    def status(self):
        """Return the run's TrainingStatus, from its row."""
        return status_of(self.run)

    def stop(self) -> None:
        """Ask the run to stop, whichever replica or worker holds it."""
        self.store.request_stop(session.profile())

    def wait(self, timeout: float | None = None):
        """Read the row again (the run ends on the worker; nothing to wait for here)."""
        self.run = self.store.queued_run(self.run.id) or self.run
        return self.status()


def position(job) -> int:
    """Return a queued run's place in the queue, 0 for a run that is not waiting."""
    return job.position if isinstance(job, QueuedJob) else 0


def current():
    """Return the profile's training run (running or ended), attaching this session to it."""
    if classroom.enabled():
        return _queued()
    entry = services.training_jobs().get(session.profile().id)
    if entry is None or entry.job is None:
        st.session_state.pop(JOB_KEY, None)
        return None
    entry.sessions = entry.sessions | {_session_id()}
    st.session_state[JOB_KEY] = entry.job
    return entry.job


def _queued() -> QueuedJob | None:
    """Return the profile's newest run on the queue, after marking stalled runs interrupted."""
    store = services.store()
    store.reap_runs(stale_seconds())
    run = store.latest_run(session.profile())
    return None if run is None else QueuedJob(store, run)


def start(trainer, code: str, settings):
    """Stop the profile's run, check the code, and start a new run if the check passes."""
    if classroom.enabled():
        return _enqueue(trainer, code, settings)
    previous = current()
    if previous is not None:
        previous.stop()
        previous.wait(5)  # so that its slot is free before the new run asks for one
    profile = session.profile()
    entry = Attached(sessions=frozenset({_session_id()}))
    on_finish = saver(code, profile, session.dataset_source())
    checked, job = trainer.train(code, settings, alive=entry.alive, on_finish=on_finish)
    if job is not None:
        entry.job = job
        services.training_jobs()[profile.id] = entry
        st.session_state[JOB_KEY] = job
    return checked


def _enqueue(trainer, code: str, settings):
    """Check the code here; if it passes, queue the run for a worker (unless one is queued or
    running already: the page shows that one)."""
    checked = trainer.check(code, settings)
    if checked.passed:
        store = services.store()
        run_id = store.queue_run(
            session.profile(), code, asdict(settings), session.dataset_source()
        )
        if run_id is not None:
            defer(services.config().database_url, run_id)
    return checked


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


def saver(code: str, profile, dataset: str) -> Callable:
    """Return the function that saves a finished run's report with the profile."""
    store = services.store()

    def save(report) -> None:
        store.record_run(profile, record_of(report, code, dataset))

    return save
