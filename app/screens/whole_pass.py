"""The whole pass: paste the lecture's entire Exercise 1 cell and get the cmp table of all 26."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app import links, services, session
from app.panels import datasets, notebook_progress, workbench
from app.storage import SOLVED, facts_of
from app.views import notebook_view, results
from grader import notebook
from grader.training import TrainSettings

if TYPE_CHECKING:
    from collections.abc import Callable

    from streamlit.delta_generator import DeltaGenerator

    from app.storage import Profile, Store
    from grader import Catalog, Grader, PassResult
    from grader.course import Scenario


def starter(scenario: Scenario, answers: dict[str, str] | None = None) -> str:
    """Return a template with one line per gradient, in backward order, with its shape; a
    gradient the learner has solved as an exercise comes filled in with their own answer."""
    answers = answers or {}
    lines = [
        "# Exercise 1: backprop through the whole thing manually.",
        "# Replace each `...` with the gradient, in this order (backward).",
    ]
    for name in scenario.whole_pass:
        if name in answers:
            lines.append(answers[name].strip())
            continue
        shape = scenario.statement(name).shape
        lines.append(f"d{name} = ...  # {shape}" if shape else f"d{name} = ...")
    return "\n".join(lines) + "\n"


def my_answers(catalog: Catalog, store: Store, profile: Profile, slug: str) -> dict[str, str]:
    """Return, per tensor of the whole pass, the code of the learner's last solved attempt at
    the step exercise asking for its gradient."""
    found: dict[str, str] = {}
    for exercise in catalog.exercises:
        step = exercise.given == exercise.scenario.consumers(exercise.target)  # not a fused one
        if exercise.scenario.slug != slug or exercise.answer != f"d{exercise.target}" or not step:
            continue
        if exercise.target in found:
            continue
        solved = [a for a in store.work.attempts(profile, exercise.id) if a.solved]
        if solved:
            found[exercise.target] = solved[-1].code
    return found


LECTURE_INTRO = (
    "Paste the lecture's entire Exercise 1 cell, or write it here: every gradient from "
    "`dlogprobs` back to `dC`, in one program. Each is compared with autograd on the "
    "lecture batch (the lecture's `cmp` table); the first wrong one in backward order is "
    "the root cause, since everything after it inherits its error."
)
INTRO = (
    "Write every gradient of the forward pass in one program, from the loss back to the "
    "parameters. Each is compared with autograd on the main batch; the first wrong one in "
    "backward order is the root cause, since everything after it inherits its error."
)


def render(slug: str, renavigate: Callable[[], object] = lambda: None) -> None:
    """Render the whole-pass page of one scenario; renavigate sends the navigation again
    (app/nav.py's), for its icons, when a pass changes statuses."""
    scenario = services.catalog().scenario(slug)
    key = links.whole_pass_id(slug)
    st.title(f"The whole pass: all {len(scenario.whole_pass)} gradients")
    badge = st.container()
    st.markdown(LECTURE_INTRO if scenario.lecture else INTRO)
    with st.expander("The forward pass", icon=":material/arrow_forward:"):
        st.code("\n".join(s.source for s in scenario.forward), language="python")
    _work(slug, key, badge, renavigate)
    if slug == notebook.lecture_scenario(services.catalog()):
        _notebook(key)


@st.fragment
def _work(slug: str, key: str, badge: DeltaGenerator, renavigate: Callable[[], object]) -> None:
    """Show the editor, grade a pass and show what to do first, then the numbers; draw the
    badge into its place above. A fragment, as an exercise's editor is: a submission reruns
    only this part, and a pass that changes statuses (its own, its steps') sends the
    navigation again instead of a run of the whole page."""
    grader = session.grader()
    scenario = services.catalog().scenario(slug)
    answers = my_answers(services.catalog(), services.store(), session.profile(), slug)
    prefilled = starter(scenario, answers)
    if answers:
        st.button(
            f"Start from my {len(answers)} solved answers",
            key=f"{key}:prefill",
            icon=":material/playlist_add:",
            on_click=workbench.replace,
            args=(key, prefilled),
            help="Replaces the code below with your solved answers, in backward order, and "
            "`...` where a gradient is still to write.",
        )
    code = workbench.submission(key, workbench.editor_event(key, prefilled, lines=36))
    changed = code is not None and _grade(grader, slug, key, code)
    result = st.session_state.get(f"result:{key}")
    if result is not None:  # what to do first (the verdict, the root's diagnosis), then numbers
        results.show_pass_verdict(result)
        if result.refused_construct:
            results.show_language(grader.catalog.course.language)
        _root(key, result)
        st.markdown(datasets.describe(result.header))
        results.show_pass_table(result)
    with badge:
        _status(key)
    if changed:
        renavigate()  # the navigation's icons show the new statuses


def _notebook(key: str) -> None:
    """Offer to grade the learner's own Jupyter notebook of the lecture; show its report."""
    st.header("Or grade your own notebook")
    st.markdown(
        "Upload your Jupyter notebook of the lecture as it is (`.ipynb`); it is graded at once. "
        "Its Exercise 1 cell, the `dlogits` and `dhprebn` cells of Exercises 2 and 3 and the "
        "backward section of Exercise 4's loop are found by what they hold, wherever they are, "
        "and graded like the answers here; no other cell runs. Upload it again to regrade."
    )
    upload = st.file_uploader("Your notebook", type=["ipynb"], key=f"{key}:notebook")
    # Each upload is graded once: a rerun for another widget does not grade it again.
    if upload is not None and st.session_state.get(f"notebook-file:{key}") != upload.file_id:
        st.session_state[f"notebook-file:{key}"] = upload.file_id
        _grade_notebook(key, session.grader(), upload.getvalue(), upload.name)
    shown = st.session_state.get(f"notebook:{key}")
    if isinstance(shown, str):
        st.error(shown, icon=results.FAILED_ICON)
    elif shown is not None:
        notebook_view.show_notebook(shown, about=datasets.describe(shown.header))


def _grade_notebook(key: str, grader: Grader, raw: bytes, name: str) -> None:
    """Read and grade a notebook (in grader/); keep the report, or why it cannot be graded."""
    try:
        found = notebook.read(raw, name)
    except notebook.NotebookError as err:
        st.session_state[f"notebook:{key}"] = str(err)
        return
    trainer = session.trainer()
    settings = TrainSettings()  # the lecture's: Exercise 4's gradient check on its first step
    with st.spinner("Grading your notebook…"):
        report = notebook.grade(found, grader, lambda code: trainer.check(code, settings))
    st.session_state[f"notebook:{key}"] = report
    if notebook_progress.record(found, report):
        st.rerun()  # so that the badge and the navigation show the new statuses


def _root(key: str, result: PassResult) -> None:
    """Say what the step exercise of the first wrong gradient says of the learner's lines for
    it, and open that exercise on those lines."""
    if not result.root_exercise:
        return
    name = result.root_cause
    with st.container(border=True, key="whole-pass-root"):
        if result.diagnosis:
            st.markdown(f"**What the `{name}` exercise says of your lines:** {result.diagnosis}")
        if st.button(
            f"Open the `{name}` exercise with your lines",
            key=f"{key}:root",
            icon=":material/open_in_new:",
        ):
            lines = result.line_of(name)
            if lines:
                workbench.replace(result.root_exercise, lines + "\n")
            st.switch_page(links.exercise_page(result.root_exercise))


def _status(key: str) -> None:
    """Show whether the profile has passed the whole thing."""
    status = session.statuses().get(key)
    if status == SOLVED:
        st.badge("Solved", icon=":material/check_circle:", color="green")
    elif status:
        st.badge("Attempted, not solved yet", icon=":material/pending:", color="orange")
    else:  # nothing to say yet; the place is held for the editor's fragment to write into
        st.empty()


def _grade(grader: Grader, slug: str, key: str, code: str) -> bool:
    """Grade a whole pass, record it (and the steps it proves), keep the result to show;
    return whether any status changed."""
    before = dict(session.statuses())
    with st.spinner("Grading all gradients…"):
        result = grader.grade_pass(code, slug)  # timed by the grader
        workbench.record(
            key, code, result.solved, result.message, result.elapsed, result.busy, facts_of(result)
        )
        notebook_progress.record_pass_steps(result, slug)  # one rule with notebooks
        st.session_state[f"result:{key}"] = result
    return session.statuses() != before
