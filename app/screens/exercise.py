"""One exercise: the prompt, the tensors in scope, the editor, the feedback, hints and reveal."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app import links, services, session
from app.panels import preview, scratchpad, whycard, workbench
from app.storage import REGRADE, SOLVED, facts_of
from app.views import graphview, results

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator

    from app.storage import Attempt
    from grader import ExerciseView, Grader, TensorInfo

REVEAL_CONFIRM = "reveal:confirm"
EARLIER_VERSION = "It answered an earlier version of this exercise, which has changed since."
GRADED_AGAIN = "Graded again: the same code as your previous attempt."
REGRADED = "This answer was graded again after the exercise was fixed."
GRADING_WARM = (
    "Grading… The server has just started and is still computing the reference gradients: "
    "this first one takes a few seconds longer."
)
ROLES = {"forward": "forward value", "given": "given (upstream)", "answer": "you write this"}


def render(exercise_id: str, renavigate: Callable[[], object] = lambda: None) -> None:
    """Render the exercise page for the current profile and dataset; renavigate sends the
    navigation again (app/nav.py's), for its icons, when an attempt changes the status."""
    grader = session.grader()
    view = grader.describe(exercise_id)
    badge = _header(view)
    preview.offer(view)  # the instructor's: the page as if solved
    whycard.lecture_link(view)
    st.markdown(view.prompt)
    _scope(view)
    graph = st.expander("Where this gradient comes from (the graph)")
    _work(exercise_id, view, badge, graph, renavigate)
    _next(exercise_id)


@st.fragment
def _work(
    exercise_id: str,
    view: ExerciseView,
    badge: DeltaGenerator,
    graph: DeltaGenerator,
    renavigate: Callable[[], object],
) -> None:
    """Show the editor and what an attempt changes: the feedback, the why card, the scratchpad,
    the derivation, the hints and the reveal; and, in their places above, the status badge
    and the graph's colours.

    A fragment, so that a submission reruns only this part and the feedback is drawn by the
    run that graded it; an auto-save does not rerun it (the editor's callback keeps the draft
    and reruns only the small fragment of the editor's notices). What the status changes
    outside it (the badge, the graph) is drawn by each of its runs into the containers the
    page keeps for them, after the grading; a new status sends the navigation again for its
    icons. No run of the whole page follows a submission.
    """
    event = workbench.editor_event(exercise_id, view.starter, drafts=True)
    code = workbench.submission(exercise_id, event)
    changed = code is not None and _grade(session.grader(), exercise_id, code)
    result = st.session_state.get(f"result:{exercise_id}")
    if result is not None:
        results.show_result(result)
        if result.refused_construct:
            results.show_language(session.grader().catalog.course.language)
        if st.session_state.get(f"again:{exercise_id}"):
            st.caption(GRADED_AGAIN)
    else:
        _last_attempt(exercise_id)
    whycard.show(view)
    scratchpad.show(view)
    whycard.derivation(view)
    _hints(exercise_id, view.hints)
    _reveal(exercise_id, view.starter)
    with badge:
        _badge(view.id)
    with graph:
        _graph(session.grader(), exercise_id)
    workbench.drawn(exercise_id)  # an auto-save may now rerun the notices alone
    if changed:
        renavigate()  # the navigation's icons show the new status


def _graph(grader: Grader, exercise_id: str) -> None:
    """Show where this tensor sits in the forward pass and which consumers feed it (in the
    page's folded expander)."""
    catalog = services.catalog()
    exercise = catalog.get(exercise_id)
    focus = (exercise.target, exercise.given)
    graphview.show(grader, catalog, exercise.scenario.slug, session.statuses(), focus)


def _header(view: ExerciseView) -> DeltaGenerator:
    """Show the title and the group; return the place of the badge that says whether this
    profile has solved it (drawn by `_work`, which knows the status after a submission)."""
    st.caption(view.group or view.scenario)
    st.title(view.title)
    return st.container()


def _badge(exercise_id: str) -> None:
    """Show whether this profile has solved the exercise."""
    status = session.statuses().get(exercise_id)
    if status == SOLVED:
        st.badge("Solved", icon=":material/check_circle:", color="green")
    elif status:
        st.badge("Attempted, not solved yet", icon=":material/pending:", color="orange")
    else:
        st.badge("Not attempted yet", icon=":material/radio_button_unchecked:", color="gray")


def _scope(view: ExerciseView) -> None:
    """Show the forward lines (unless the prompt quotes them already) and the table of tensors
    in scope, with shapes and roles, the whole width of the page (at 800 px, half of it hid
    the role column behind a scroll)."""
    if not view.prompt_quotes_forward:
        st.markdown("**The forward pass**")
        st.code("\n".join(view.forward_lines), language="python")
    else:  # the prompt quotes the lines; say what their comments here would have added
        for code, note in zip(view.forward_code, view.forward_notes, strict=False):
            if note and note not in view.prompt:
                st.caption(f"`{code}`: {note}.")
    st.markdown(f"**Tensors in scope** ({scratchpad.batch_words(view.lecture_url)})")
    st.dataframe(_tensor_table(view.tensors), hide_index=True, width="stretch")


@lru_cache(maxsize=128)
def _tensor_table(tensors: tuple[TensorInfo, ...]) -> pd.DataFrame:
    """Return one row per tensor: name, shape, shape in words, role (built once per exercise
    version and dataset: the tensors are the key; the table is only read)."""
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


def _grade(grader: Grader, exercise_id: str, code: str) -> bool:
    """Grade a submission, record it, and keep the result to show; return whether the
    exercise's status changed."""
    store, profile = services.store(), session.profile()
    before = session.statuses().get(exercise_id)
    earlier = store.work.attempts(profile, exercise_id)
    st.session_state[f"again:{exercise_id}"] = bool(earlier) and earlier[-1].code == code
    with st.spinner(GRADING_WARM if services.warming_up() else "Grading…"):
        result = grader.grade(exercise_id, code)
        summary, facts = result.summary_with_hint(), facts_of(result)
        workbench.record(
            exercise_id, code, result.solved, summary, result.elapsed, result.busy, facts
        )
        st.session_state[f"result:{exercise_id}"] = result
    return session.statuses().get(exercise_id) != before


def _last_attempt(exercise_id: str) -> None:
    """Remind the learner of their last recorded attempt (after a reload or a restart)."""
    attempts = session.attempts(exercise_id)
    if attempts:
        last = attempts[-1]
        verdict = "solved" if last.solved else "not solved yet"
        tries = sum(1 for a in attempts if a.origin != REGRADE)  # a regrade is not a try
        st.caption(f"Your last attempt ({tries} so far): {verdict}. {last.summary}")
        if last.origin == REGRADE and len(attempts) > 1:
            st.caption(_regraded(attempts[-2].solved, last.solved))
        if last.version and last.version != services.exercise_version(exercise_id):
            st.caption(EARLIER_VERSION)


def _regraded(was: bool, now: bool) -> str:
    """Say that the instructor graded the last answer again after fixing the exercise, and
    what that changed."""
    words = {True: "solved", False: "not solved"}
    if was == now:
        return f"{REGRADED} It is still {words[now]}."
    return f"{REGRADED} It was {words[was]} before; it is {words[now]} now."


def _hints(exercise_id: str, hints: tuple[str, ...]) -> None:
    """Show the hints revealed so far, and a button for the next one."""
    shown = min(session.events(exercise_id).get("hint", 0), len(hints))
    for i, hint in enumerate(hints[:shown], start=1):
        st.info(f"**Hint {i}.** {hint}", icon=":material/lightbulb:")
    if shown < len(hints) and st.button(
        f"Show hint {shown + 1} of {len(hints)}",
        icon=":material/lightbulb:",
        key=f"hint:{exercise_id}",
    ):
        session.record_event(exercise_id, "hint")
        st.rerun()


def _reveal(exercise_id: str, starter: str) -> None:
    """Offer the reference solution after enough real attempts, and show it once confirmed."""
    needed = services.config().reveal_after
    if session.events(exercise_id).get("reveal", 0):
        _show_solution(exercise_id)
    elif session.statuses().get(exercise_id) == SOLVED:
        return  # solved: nothing left to reveal
    elif needed == 0:
        st.caption("Revealing the solution is switched off here.")
    elif (real := real_attempts(session.attempts(exercise_id), starter)) < needed:
        st.caption(
            f"The solution can be revealed after {_attempts(needed)} of your own that ran "
            f"(changed from the starter): {real} so far."
        )
    elif st.session_state.get(f"{REVEAL_CONFIRM}:{exercise_id}"):
        _confirm_reveal(exercise_id)
    elif st.button(
        "Reveal the solution…", icon=":material/visibility:", key=f"reveal:{exercise_id}"
    ):
        st.session_state[f"{REVEAL_CONFIRM}:{exercise_id}"] = True
        st.rerun()


def _confirm_reveal(exercise_id: str) -> None:
    """Ask once more before showing the answer; it is recorded as revealed."""
    key = f"{REVEAL_CONFIRM}:{exercise_id}"
    st.warning("Show the reference solution? It is recorded as revealed in your progress.")
    yes, no = st.columns(2)
    if yes.button("Yes, show the solution", type="primary", key=f"reveal_yes:{exercise_id}"):
        session.record_event(exercise_id, "reveal")
        st.session_state[key] = False
        st.rerun()
    if no.button("Cancel", key=f"reveal_no:{exercise_id}"):
        st.session_state[key] = False
        st.rerun()


def real_attempts(attempts: list[Attempt], starter: str) -> int:
    """Return how many of the learner's own attempts changed the starter and ran (not refused,
    raised or timed out; a regrade of an old answer is not one)."""
    return sum(
        1
        for a in attempts
        if _lines(a.code) != _lines(starter) and a.facts.ran and a.origin != REGRADE
    )


def _lines(code: str) -> list[str]:
    """Return code's non-blank lines without trailing spaces, to compare with the starter."""
    return [line.rstrip() for line in code.splitlines() if line.strip()]


def _attempts(count: int) -> str:
    return "one attempt" if count == 1 else f"{count} attempts"


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
    label, target = links.next_after(exercise_id)
    if st.button(label, icon=":material/arrow_forward:", key=f"next:{exercise_id}"):
        st.switch_page(target)
