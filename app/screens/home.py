"""Home: the course, where the learner left off, the map of the backward pass, the dataset."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app import classroom, links, services, session
from app.panels import datasets
from app.storage import ATTEMPTED, SOLVED
from app.views import graphview

if TYPE_CHECKING:
    from app.storage import ExerciseProgress
    from grader import Catalog, Exercise, SchemaError
    from grader.course import Scenario

ICONS = {SOLVED: ":material/check_circle:", ATTEMPTED: ":material/pending:"}
UNTOUCHED = ":material/radio_button_unchecked:"
WITHDRAWN = "Some exercises are not available until the course's files are fixed."
LEGEND = (
    ":green[:material/check_circle:] solved · :orange[:material/pending:] attempted · "
    ":material/radio_button_unchecked: not yet"
)


def render() -> None:
    """Render Home for the current profile, in the words of the course."""
    catalog = services.catalog()
    st.title(catalog.course.title)
    st.markdown(catalog.course.intro)
    statuses = services.store().work.statuses(session.profile())
    training = services.training_available(catalog)
    _continue(catalog, statuses, training)
    _errors(catalog.errors)
    pending = services.held_back()  # as the run's catalog saw them: proofs may end meanwhile
    if pending:  # no timer once every exercise is proven
        _checking(pending)
    st.header("Your map of the backward pass")
    st.caption(LEGEND)
    for scenario in catalog.scenarios:
        first = scenario is catalog.scenarios[0]
        with st.expander(f"The graph of {scenario.title}", expanded=first):
            graphview.show(session.grader(), catalog, scenario.slug, statuses)
        _scenario_map(catalog, scenario, statuses)
    if training:
        st.subheader("Exercise 4: train the MLP")
        st.page_link(links.page(links.TRAINING), label="Train the MLP with your own backward pass")
    lecture = next((s for s in catalog.scenarios if s.uses_dataset), None)
    if lecture is not None:
        st.header("Dataset")
        datasets.show(lecture.slug)


@st.fragment(run_every=0.5)
def _checking(shown: int) -> None:
    """While exercises are being proven, say so and redraw the app when more are served."""
    pending = len(services.proofs_pending())
    if pending != shown:
        st.rerun()
    if pending:
        st.info(
            f"{pending} exercise(s) are being checked and appear here once proven.",
            icon=":material/hourglass_top:",
        )


def _continue(catalog: Catalog, statuses: dict[str, str], training: bool) -> None:
    """Offer the exercise to work on next: the last one touched if unsolved, else the next."""
    target = next_exercise(catalog, services.store().work.progress(session.profile()), statuses)
    if target is None and catalog.exercises:
        more = ", or train the MLP" if training else ""
        st.success(f"Every exercise is solved. Try the whole pass in one go{more}.")
        return
    if target is None:
        return
    label = "Continue where I left off" if statuses else "Start with the first exercise"
    if st.button(
        f"{label}: {target}", type="primary", icon=":material/play_arrow:", key="home:continue"
    ):
        st.switch_page(links.exercise_page(target))


def next_exercise(
    catalog: Catalog, progress: list[ExerciseProgress], statuses: dict[str, str]
) -> str | None:
    """Return the exercise to continue with, or None when all are solved."""
    ids = [e.id for e in catalog.exercises]
    touched = sorted((p for p in progress if p.exercise_id in ids), key=lambda p: p.last_at or 0)
    if touched and statuses.get(touched[-1].exercise_id) != SOLVED:
        return touched[-1].exercise_id
    order = _after(catalog, touched[-1].exercise_id) if touched else ids
    return next((i for i in order if statuses.get(i) != SOLVED), None)


def _after(catalog: Catalog, last: str) -> list[str]:
    """Return the exercises after `last` in its own scenario, then every exercise in the
    course's order (the lecture's first): never a new scenario while the lecture has gaps."""
    own = [e.id for e in catalog.exercises if e.scenario.slug == catalog.get(last).scenario.slug]
    return own[own.index(last) + 1 :] + [e.id for e in catalog.exercises]


def _errors(errors: tuple[SchemaError, ...]) -> None:
    """List the problems with the exercise files for an instructor; a learner is only told that
    some exercises are withdrawn (no paths, no answers' places). The rest keep working."""
    if not errors:
        return
    if not classroom.is_instructor():
        st.info(WITHDRAWN, icon=":material/construction:")
        return
    with st.expander(f"{len(errors)} problem(s) with the exercise files", icon=":material/error:"):
        for err in errors:
            st.markdown(f"- `{err.where}`: {err.problem}")


def _scenario_map(catalog: Catalog, scenario: Scenario, statuses: dict[str, str]) -> None:
    """Show a scenario's forward lines with their gradients, then its other groups."""
    exercises = [e for e in catalog.exercises if e.scenario.slug == scenario.slug]
    groups: dict[str, list] = {}
    for exercise in exercises:
        groups.setdefault(exercise.group or scenario.title, []).append(exercise)
    for i, (group, members) in enumerate(groups.items()):
        solved = sum(statuses.get(e.id) == SOLVED for e in members)
        st.subheader(group)
        st.caption(f"{solved} of {len(members)} solved")
        if i > 0:
            for exercise in members:
                _link(exercise, statuses, exercise.title)
            continue
        _forward_lines(scenario, members, statuses)
        if scenario.whole_pass:
            _whole_pass_link(catalog, scenario, statuses)


def _whole_pass_link(catalog: Catalog, scenario: Scenario, statuses: dict[str, str]) -> None:
    """Link to the scenario's whole-pass page, marked with its status."""
    icon = ICONS.get(statuses.get(links.whole_pass_id(scenario.slug)), UNTOUCHED)
    label = f"**The whole pass:** all {len(scenario.whole_pass)} gradients in one program"
    st.page_link(links.whole_pass_page(scenario.slug, catalog), label=label, icon=icon)


def _forward_lines(scenario: Scenario, exercises: list[Exercise], statuses: dict[str, str]) -> None:
    """List the gradients in teaching order, each beside the forward line of its tensor."""
    forward = {stmt.target for stmt in scenario.forward}
    columns = st.columns(2)
    half = (len(exercises) + 1) // 2
    for i, exercise in enumerate(exercises):
        target = exercise.target
        if target in forward:
            line = f"`{scenario.statement(target).source}`"
        else:
            users = [s.source for s in scenario.forward if target in s.reads]
            line = f"used in `{users[0]}`" if users else "a parameter"
        with columns[i // half]:
            _link(exercise, statuses, f"`{exercise.answer}` · {line}")


def _link(exercise: Exercise, statuses: dict[str, str], text: str) -> None:
    """Link to an exercise, marked with its status."""
    icon = ICONS.get(statuses.get(exercise.id), UNTOUCHED)
    st.page_link(links.exercise_page(exercise.id), label=text, icon=icon)
