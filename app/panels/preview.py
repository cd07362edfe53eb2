"""The instructor's preview of an exercise as a learner sees it once solved: the checks of the
reference answer, the why card and the answer itself, without solving it.

Only for the course's instructor (`classroom.is_instructor()`: whoever runs the app locally
with `NINJA_INSTRUCTOR=1`, a signed-in instructor in the classroom mode); learners, and the
local mode's default, never get the switch. The reference answer is graded like any answer,
through the sandbox, and nothing is recorded: the instructor's progress stays as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app import classroom, services, session
from app.views import results

if TYPE_CHECKING:
    from grader import ExerciseView

SWITCH = "Preview as solved (instructor)"
SWITCH_HELP = "See this exercise as a learner sees it once solved, without solving it."
MARK = (
    "**Instructor preview**: this exercise as a learner sees it once solved, with the reference "
    "answer graded. Nothing is recorded; learners never see this."
)
NO_SOLUTION = "This exercise has no reference solution file, so there is nothing to preview."


def offer(view: ExerciseView) -> None:
    """Offer the instructor the preview of an exercise, and show it while switched on."""
    if not classroom.is_instructor():
        return
    if not st.toggle(SWITCH, key=f"preview:{view.id}", help=SWITCH_HELP):
        return
    with st.container(border=True, key=f"instructor-preview-{view.id}"):
        st.info(MARK, icon=":material/visibility:")
        code = _solution(view.id)
        if code is None:
            st.warning(NO_SOLUTION)
            return
        results.show_result(_graded(view.id, code))
        if view.explain:
            st.markdown("##### :material/school: Why it is so")
            st.markdown(view.explain)
        st.markdown("**The reference solution**")
        st.code(code, language="python")


def _solution(exercise_id: str) -> str | None:
    """Return the exercise's reference answer, or None without one."""
    try:
        return services.catalog().get(exercise_id).solution()
    except (OSError, KeyError):
        return None


def _graded(exercise_id: str, code: str):
    """Return the reference answer's result, graded once per version of the exercise in this
    session (a result the busy grader did not give is not kept)."""
    key = f"preview:result:{exercise_id}:{services.exercise_version(exercise_id)}"
    if key not in st.session_state:
        result = session.grader().grade(exercise_id, code)
        if result.busy:
            return result
        st.session_state[key] = result
    return st.session_state[key]
