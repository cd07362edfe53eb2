"""Exercise 4: train the MLP with the learner's own backward pass.

The editor holds the backward section, prefilled from the learner's solved answers; the rest
of the loop is shown read-only. Submitting checks the seven gradients against autograd; Start
checks again and trains in a sandboxed worker, with live progress, a Stop button, and the
result beside an autograd-trained reference. In the classroom mode the run waits on the task
queue for a worker machine (app/training/), and the page shows its place in the queue.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import TYPE_CHECKING

import streamlit as st

from app import services, session
from app.panels import whycard, workbench
from app.storage import NOT_SOLVED, Facts, facts_of
from app.training import runs
from app.views import training_view
from grader import TRAINING, feedback
from grader import training as grader_training

if TYPE_CHECKING:
    from grader.training import Trainer, TrainSettings

KEY = "training"
CHECK_KEY = "training:check"
STOPPING = "training:stopping"
FIELDS = {  # name: (label, smallest, largest, step, format)
    "steps": ("Steps", 1, 1_000_000, 1000, None),
    "batch_size": ("Batch size", 2, 4096, 1, None),
    "n_hidden": ("Hidden units (n_hidden)", 1, 2048, 1, None),
    "seed": ("Seed", 0, 2**53 - 1, 1, None),
    "learning_rate": ("Learning rate", 1e-6, 10.0, 0.01, "%.4f"),
    "decayed_rate": ("Learning rate after decay", 1e-6, 10.0, 0.001, "%.4f"),
    "decay_step": ("Decay at step", 0, 1_000_000, 1000, None),
}
INTRO = """
The lecture's finale: take out `loss.backward()` and train the `n_hidden=200` MLP with **your
own gradients**. Your answers to the exercises make up the backward section below (a `...` line
is an exercise still to solve). **Submit** (Ctrl+Enter) checks your seven gradients against
autograd on the first batch, as the lecture's early `break` does; **Start training** checks
again and trains in a sandboxed worker, then evaluates the model beside one trained by autograd.
"""


def render() -> None:
    """Render the training page for the current profile and dataset (where the course has it)."""
    st.title("Exercise 4: train the MLP")
    if not services.training_available(services.catalog()):
        st.info("This course has no training page: it needs the lecture's MLP exercises.")
        return
    whycard.chapter_link(TRAINING.url, TRAINING.label)
    st.markdown(INTRO)
    trainer = session.trainer()
    settings = _settings()
    before, after = trainer.program(settings or _presets()["lecture"])
    st.markdown("**The loop around your code** (read-only)")
    # whole and wrapped: a block that scrolls cannot be reached by keyboard (axe-core)
    st.code(before, language="python", wrap_lines=True)
    st.markdown("**Your backward pass** (it runs inside the loop, once per step)")
    section = trainer.section(_solved_answers())
    event = workbench.editor_event(KEY, section, lines=30)
    submitted = workbench.submission(KEY, event)  # records the draft, which _rebuild reads
    _rebuild(section)
    st.code(after, language="python")
    if submitted is not None:
        _check(trainer, submitted, settings)
    _actions(trainer, settings)
    check = st.session_state.get(CHECK_KEY)
    if check is not None:
        training_view.show_check(check)
    _run(trainer)
    _history()


def _presets() -> dict[str, TrainSettings]:
    """Return the grader's presets (its face loads them on first use)."""
    return grader_training.PRESETS


def _settings() -> TrainSettings | None:
    """Show the settings with the two presets; return TrainSettings, or None if invalid."""
    presets = _presets()
    for name, value in asdict(presets["lecture"]).items():
        st.session_state.setdefault(f"training:{name}", value)
    left, right, _ = st.columns([1, 1, 3])
    left.button("Lecture: 200,000 steps", on_click=_apply, args=(presets["lecture"],))
    right.button("Quick: 20,000 steps", on_click=_apply, args=(presets["quick"],))
    with st.expander("Settings", icon=":material/tune:"):
        columns = st.columns(4)
        for i, (name, (label, low, high, step, shown)) in enumerate(FIELDS.items()):
            columns[i % 4].number_input(
                label, low, high, step=step, format=shown, key=f"training:{name}"
            )
    names = [f.name for f in fields(grader_training.TrainSettings)]
    chosen = {name: st.session_state[f"training:{name}"] for name in names}
    try:
        return grader_training.TrainSettings(**chosen)
    except ValueError as err:
        st.error(str(err))
        return None


def _apply(preset: TrainSettings) -> None:
    """Put a preset's values into the settings widgets."""
    for name, value in asdict(preset).items():
        st.session_state[f"training:{name}"] = value


def _solved_answers() -> dict[str, str]:
    """Return the learner's latest solved answer to each exercise."""
    attempts = services.store().work.attempts(session.profile())
    return {a.exercise_id: a.code for a in attempts if a.solved}


def _rebuild(section: str) -> None:
    """Offer to start the section again from the learner's solved answers, if it differs."""
    draft = services.store().work.draft(session.profile(), KEY)
    if draft is not None and draft != section:
        st.button(
            "Rebuild from my solved answers",
            icon=":material/restart_alt:",
            on_click=workbench.replace,
            args=(KEY, section),
            help="Replace the section with your latest solved answers (and starters).",
            key="training:rebuild",
        )


def _code(trainer: Trainer) -> str:
    """Return the section as last typed (the saved draft), else as prefilled."""
    draft = services.store().work.draft(session.profile(), KEY)
    return draft if draft is not None else trainer.section(_solved_answers())


def _check(trainer: Trainer, code: str, settings: TrainSettings | None) -> None:
    """Check the gradients of a submitted section and keep the result to show."""
    if settings is None:
        facts = Facts(status=NOT_SOLVED)  # nothing ran: the settings were refused
        workbench.record(KEY, code, False, "The settings are not valid.", 0.0, facts=facts)
        return
    with st.spinner("Checking your gradients against autograd…"):
        check = trainer.check(code, settings)
    workbench.record(KEY, code, check.passed, check.message, 0.0, facts=facts_of(check))
    st.session_state[CHECK_KEY] = check


BUTTONS = (
    "**Submit** (Ctrl+Enter, in the editor) only checks your seven gradients against autograd "
    "on the first batch; **Start training** checks them again, then trains with them."
)


def _actions(trainer: Trainer, settings: TrainSettings | None) -> None:
    """Show Start training (and Stop while a run is going), and, where the two buttons are,
    what each does."""
    if (refused := st.session_state.pop(runs.REFUSED, None)) is not None:  # the learner's limit
        st.warning(refused.message(), icon=":material/block:")
    run = runs.current()
    running = run is not None and run.status().active
    st.caption(BUTTONS)
    if st.button(
        "Start training",
        type="primary",
        icon=":material/play_arrow:",
        disabled=settings is None or running,
        key="training:start",
        help="Checks the gradients again, then trains in a sandboxed worker.",
    ):
        code = _code(trainer)
        with st.spinner("Checking your gradients against autograd…"):
            check = runs.start(trainer, code, settings)
        workbench.record(KEY, code, check.passed, check.message, 0.0, facts=facts_of(check))
        st.session_state[CHECK_KEY] = check
        st.rerun()


def _run(trainer: Trainer) -> None:
    """Show this session's run: live while it goes, then its results."""
    run = runs.current()
    if run is None:
        return
    st.header("Training")
    if run.status().active:
        _live()
        return
    report = run.status().report
    reference = trainer.reference(report.settings, start=report.state == "finished")
    speed = ""
    if report.state == "finished" and reference.state == "done":
        speed = feedback.speed_comparison(report.steps_per_s, reference.steps_per_s)
    training_view.show_report(report, reference, speed)
    if report.state == "finished" and reference.state == "running":
        _reference_wait(trainer, report.settings)


@st.fragment(run_every=1.0)
def _live() -> None:
    """Refresh the progress every second; Stop ends the run at once."""
    run = runs.current()
    if st.session_state.pop(STOPPING, None) is run:
        run.wait(2)  # killed in the callback; show the stopped run without a poll's delay
    status = run.status()
    if not status.active:
        st.rerun()
    waiting = run.position
    if waiting:  # the classroom's queue: no worker has it yet
        st.info(feedback.training_queued(waiting), icon=":material/hourglass_top:")
    training_view.show_progress(status)
    st.button("Stop", icon=":material/stop:", key="training:stop", on_click=_stop)


def _stop() -> None:
    """Stop the run from the click's callback, which runs before anything is drawn again."""
    run = runs.current()
    if run is not None:
        run.stop()
        st.session_state[STOPPING] = run


@st.fragment(run_every=2.0)
def _reference_wait(trainer: Trainer, settings: TrainSettings) -> None:
    """Say how far the autograd reference is; show the comparison once it is done."""
    reference = trainer.reference(settings)
    if reference.state != "running":
        st.rerun()
    st.info(
        feedback.reference_running(reference.step, reference.steps), icon=":material/hourglass_top:"
    )


def _history() -> None:
    """List the profile's finished runs; open one again to see its curve and samples."""
    finished = services.store().runs.training_runs(session.profile())
    if finished:
        st.header("Your finished runs")
        st.dataframe(training_view.runs_table(finished), hide_index=True, width="stretch")
        newest_first = list(reversed(finished))
        chosen = st.selectbox(
            "Open a finished run",
            range(len(newest_first)),
            index=None,
            format_func=lambda i: training_view.run_label(newest_first[i]),
            key="training:open",
            placeholder="Choose a run to see its loss curve and samples",
        )
        if chosen is not None:
            training_view.show_saved(newest_first[chosen])
