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


SHAPES = ("Values right, a shape to fix", results.SHAPE_ICON, "orange")


def show_notebook(result: NotebookResult, about: str = "") -> None:
    """Show a notebook's name in full (the uploader shortens it), its verdict, what it was
    graded on (`about`: the dataset and model) and its four exercises, each in a bordered box.
    A notebook that matches the lecture but for the shapes its `cmp` lets through says so
    first, as a warning: nothing in it is wrong in value."""
    st.markdown(f"**Graded:** `{result.name.replace('`', '')}`")
    if result.solved:
        st.success(result.message, icon=results.SOLVED_ICON)
    elif result.shapes_only:
        st.warning(result.message, icon=results.SHAPE_ICON)
    else:
        st.error(result.message, icon=results.FAILED_ICON)
    if about:
        st.markdown(about)
    for part in result.parts:
        with st.container(border=True, key=f"notebook-part-{part.number}"):
            cell = f" · cell {part.cell}" if part.cell else ""
            st.markdown(f"**{part.title}**{cell}")
            label, icon, color = badge(part)
            st.badge(label, icon=icon, color=color)
            _part(part)
    st.caption(f"Graded in {result.elapsed:.1f} s.")


def badge(part: NotebookPart) -> tuple[str, str, str]:
    """Return a part's badge: its status's, or "a shape to fix" where every value is right."""
    if part.status == "not_solved" and getattr(part.result, "shape_slips", ()):
        return SHAPES
    return BADGES[part.status]


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
