"""The training run of this browser session: started, saved and stopped with the session.

A run belongs to the session that started it. Starting another stops it; so does Stop; so does
the session going away (the grader stops a run whose `alive()` has said no for a while), and
the grader kills whatever is left at exit. A finished run is saved with the learner's profile
from the grader's thread, even if the learner has moved to another page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

import streamlit as st

from app import services, session
from app.runstore import TrainingRun

JOB_KEY = "training:job"


def current():
    """Return this session's training run (running or ended), if it started one."""
    return st.session_state.get(JOB_KEY)


def start(trainer, code: str, settings):
    """Stop this session's run, check the code, and start a new run if the check passes."""
    previous = current()
    if previous is not None:
        previous.stop()
        previous.wait(5)  # so that its slot is free before the new run asks for one
    on_finish = saver(code, session.profile(), session.dataset_source())
    checked, job = trainer.train(code, settings, alive=session_alive(), on_finish=on_finish)
    if job is not None:
        st.session_state[JOB_KEY] = job
    return checked


def stop() -> None:
    """Stop this session's run, if one is going."""
    job = current()
    if job is not None:
        job.stop()


def session_alive() -> Callable[[], bool]:
    """Return a check that this browser session is still connected to the server."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return lambda: True  # no server (a test): the run ends with Stop or at exit
    runtime, session_id = Runtime.instance(), ctx.session_id
    return lambda: runtime.is_active_session(session_id)


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
