"""The learner's training run: it belongs to the profile, not to the page or the tab.

A run is kept in a registry of the server process, by profile. Every session that shows the
training page attaches to it: a reload or a second tab sees the running job with its live
progress, and Stop works from any of them. The run goes on while at least one attached session
is connected (the grader stops a run whose `alive()` has said no for a while) and the grader
kills whatever is left at exit. Starting another run stops it. A finished run is saved with the
learner's profile from the grader's thread, even if the learner has moved to another page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import streamlit as st

from app import services, session
from app.storage import TrainingRun

JOB_KEY = "training:job"


@dataclass
class Attached:
    """A profile's run and the sessions that have shown it (replaced whole, never mutated)."""

    job: object = None
    sessions: frozenset = field(default_factory=frozenset)

    def alive(self) -> bool:
        """Return whether any attached session is still connected to the server."""
        return any(_connected(s) for s in self.sessions)


def current():
    """Return the profile's training run (running or ended), attaching this session to it."""
    entry = services.training_jobs().get(session.profile().id)
    if entry is None or entry.job is None:
        st.session_state.pop(JOB_KEY, None)
        return None
    entry.sessions = entry.sessions | {_session_id()}
    st.session_state[JOB_KEY] = entry.job
    return entry.job


def start(trainer, code: str, settings):
    """Stop the profile's run, check the code, and start a new run if the check passes."""
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
