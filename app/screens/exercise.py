"""One exercise: the prompt, the tensors in scope, the editor, the feedback, hints and reveal."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import graphview, nav, results, scratchpad, services, session, whycard, workbench
from app.storage import SOLVED

ROLES = {"forward": "forward value", "given": "given (upstream)", "answer": "you write this"}


def render(exercise_id: str) -> None:
    """Render the exercise page for the current profile and dataset."""
    grader = session.grader()
    view = grader.describe(exercise_id)
    _header(view)
    whycard.lecture_link(view)
    st.markdown(view.prompt)
    _scope(view)
    _graph(grader, exercise_id)
    code = workbench.submission(exercise_id, workbench.editor_event(exercise_id, view.starter))
    if code is not None:
        _grade(grader, exercise_id, code)
    result = st.session_state.get(f"result:{exercise_id}")
    if result is not None:
        results.show_result(result)
    else:
        _last_attempt(exercise_id)
    whycard.show(view)
    scratchpad.show(exercise_id)
    whycard.derivation(view)
    _hints(exercise_id, view.hints)
    _reveal(exercise_id)
    _next(exercise_id)


def _graph(grader, exercise_id: str) -> None:
    """Show, folded, where this tensor sits in the forward pass and which consumers feed it."""
    catalog = services.catalog()
    exercise = catalog.get(exercise_id)
    statuses = services.store().statuses(session.profile())
    with st.expander("Where this gradient comes from (the graph)"):
        focus = (exercise.target, exercise.given)
        graphview.show(grader, catalog, exercise.scenario.slug, statuses, focus)


def _header(view) -> None:
    """Show the title, the group and whether this profile has solved it."""
    st.caption(view.group or view.scenario)
    st.title(view.title)
    status = services.store().statuses(session.profile()).get(view.id)
    if status == SOLVED:
        st.badge("Solved", icon=":material/check_circle:", color="green")
    elif status:
        st.badge("Attempted, not solved yet", icon=":material/pending:", color="orange")
    else:
        st.badge("Not attempted yet", icon=":material/radio_button_unchecked:", color="gray")


def _scope(view) -> None:
    """Show the forward lines and the table of tensors in scope, with shapes and roles."""
    left, right = st.columns(2)
    with left:
        st.markdown("**The forward pass**")
        st.code("\n".join(view.forward_lines), language="python")
    with right:
        st.markdown("**Tensors in scope** (lecture batch)")
        st.dataframe(_tensor_table(view.tensors), hide_index=True, width="stretch")


def _tensor_table(tensors) -> pd.DataFrame:
    """Return one row per tensor: name, shape, shape in words, role."""
    return pd.DataFrame(
        [
            {
                "name": t.name,
                "shape": str(tuple(t.shape)),
                "in words": t.symbolic,
                "role": ROLES.get(t.role, t.role),
            }
            for t in tensors
        ]
    )


def _grade(grader, exercise_id: str, code: str) -> None:
    """Grade a submission, record it, and keep the result to show."""
    with st.spinner("Grading…"):
        result = grader.grade(exercise_id, code)
        summary = result.summary_with_hint()
        workbench.record(exercise_id, code, result.solved, summary, result.elapsed, result.busy)
        st.session_state[f"result:{exercise_id}"] = result
    st.rerun()  # so that the navigation and the badge show the new status


def _last_attempt(exercise_id: str) -> None:
    """Remind the learner of their last recorded attempt (after a reload or a restart)."""
    attempts = services.store().attempts(session.profile(), exercise_id)
    if attempts:
        last = attempts[-1]
        verdict = "solved" if last.solved else "not solved yet"
        st.caption(f"Your last attempt ({len(attempts)} so far): {verdict}. {last.summary}")


def _hints(exercise_id: str, hints: tuple[str, ...]) -> None:
    """Show the hints revealed so far, and a button for the next one."""
    store, profile = services.store(), session.profile()
    shown = min(store.count_events(profile, exercise_id, "hint"), len(hints))
    for i, hint in enumerate(hints[:shown], start=1):
        st.info(f"**Hint {i}.** {hint}", icon=":material/lightbulb:")
    if shown < len(hints) and st.button(
        f"Show hint {shown + 1} of {len(hints)}",
        icon=":material/lightbulb:",
        key=f"hint:{exercise_id}",
    ):
        store.record_event(profile, exercise_id, "hint")
        st.rerun()


def _reveal(exercise_id: str) -> None:
    """Offer the reference solution once the learner has tried at least once."""
    store, profile = services.store(), session.profile()
    if store.count_events(profile, exercise_id, "reveal"):
        _show_solution(exercise_id)
    elif not store.attempts(profile, exercise_id):
        st.caption("The solution can be revealed after your first attempt.")
    elif st.button(
        "Reveal the solution", icon=":material/visibility:", key=f"reveal:{exercise_id}"
    ):
        store.record_event(profile, exercise_id, "reveal")
        st.rerun()


def _show_solution(exercise_id: str) -> None:
    """Show the reference answer (the app may read solutions; the worker never does)."""
    try:
        code = services.catalog().get(exercise_id).solution()
    except (OSError, KeyError):
        st.warning("This exercise has no reference solution file.")
        return
    with st.expander("Reference solution (revealed)", expanded=True, icon=":material/key:"):
        st.code(code, language="python")


def _next(exercise_id: str) -> None:
    """Offer the next exercise in teaching order, then the whole pass or Home."""
    label, target = nav.next_after(exercise_id)
    if st.button(label, icon=":material/arrow_forward:", key=f"next:{exercise_id}"):
        st.switch_page(target)
