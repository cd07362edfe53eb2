"""Render a graded notebook: the verdict, then each exercise with the renderer of its kind."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app.views import results, training_view
from grader import PassResult, Result

if TYPE_CHECKING:
    from grader.result import NotebookPart, NotebookResult

BADGES = {  # a part's status -> (label, icon, colour)
    "solved": ("Solved", ":material/check_circle:", "green"),
    "not_solved": ("Not yet", ":material/cancel:", "red"),
    "unfilled": ("Not written yet", ":material/edit_note:", "orange"),
    "missing": ("No cell found", ":material/help:", "gray"),
    "grader_failed": ("The grader failed", ":material/error:", "red"),
    "busy": ("Not graded: busy", ":material/hourglass_top:", "orange"),
}


def show_notebook(result: NotebookResult) -> None:
    """Show a notebook's verdict and its four exercises, each in a bordered box."""
    if result.solved:
        st.success(result.message, icon=results.SOLVED_ICON)
    else:
        st.error(result.message, icon=results.FAILED_ICON)
    for part in result.parts:
        with st.container(border=True, key=f"notebook-part-{part.number}"):
            cell = f" · cell {part.cell}" if part.cell else ""
            st.markdown(f"**{part.title}**{cell}")
            label, icon, color = BADGES[part.status]
            st.badge(label, icon=icon, color=color)
            _part(part)
    st.caption(f"Graded in {result.elapsed:.1f} s.")


def _part(part: NotebookPart) -> None:
    """Show one exercise's own report: the whole pass, an exercise's checks, or Exercise 4."""
    if part.result is None:
        st.info(part.summary)
    elif isinstance(part.result, PassResult):
        results.show_pass(part.result)
    elif isinstance(part.result, Result):
        results.show_result(part.result)
    else:
        training_view.show_check(part.result)
