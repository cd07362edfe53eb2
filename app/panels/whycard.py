"""What an exercise page teaches beyond the verdict: the lecture's chapter, the why card, the
derivation opened one step at a time. Renders the exercise's own Markdown; no maths here."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app import session
from app.storage import SOLVED

if TYPE_CHECKING:
    from grader import ExerciseView


def lecture_link(view: ExerciseView) -> None:
    """Show a plain link to the chapter of the lecture video where this exercise is taught."""
    if view.lecture_url:
        chapter_link(view.lecture_url, view.lecture_label)


def chapter_link(url: str, label: str) -> None:
    """Show a plain link to a moment of the lecture video (the browser follows it, not the app)."""
    st.markdown(f":material/smart_display: Taught in the lecture video at [{label}]({url})")


def show(view: ExerciseView) -> None:
    """Show the why card once this profile has solved the exercise, and say so before."""
    if not view.explain:
        return
    solved = session.statuses().get(view.id) == SOLVED
    if not solved:
        st.caption("Solve it to open its why card: why the answer is what it is.")
        return
    with st.container(border=True, key=f"whycard-{view.id}"):
        st.markdown("## :material/school: Why it is so")  # the page's h1, then this h2
        st.markdown(view.explain)


def derivation(view: ExerciseView) -> None:
    """Offer the derivation step by step: each press of the button opens the next line."""
    steps = view.derivation
    if not steps:
        return
    key = f"derivation:{view.id}"
    shown = min(st.session_state.get(key, 0), len(steps))
    with st.expander("Derive it step by step", expanded=shown > 0, icon=":material/stairs:"):
        for number, step in enumerate(steps[:shown], start=1):
            st.markdown(f"**Step {number}.** {step}")
        if shown < len(steps):
            st.button(
                f"Show step {shown + 1} of {len(steps)}",
                key=f"{key}:next",
                on_click=_open_next,
                args=(key,),
            )


def _open_next(key: str) -> None:
    """Open one more step of a derivation."""
    st.session_state[key] = st.session_state.get(key, 0) + 1
