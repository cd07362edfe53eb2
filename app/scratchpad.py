"""The scratchpad of an exercise page: try code on the lecture batch, ungraded."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import services, session
from app.views import results

PLACEHOLDER = "x = counts * dprobs\nprint(x.shape)"


def show(exercise_id: str) -> None:
    """Show an editor whose code runs in the sandbox on this exercise's inputs, and its output.

    Nothing is graded or compared: the table lists what the code assigned (shape, dtype, first
    values), which is the lecture's way of working: look at shapes, then write the line.
    """
    key = f"scratch:{exercise_id}"
    store, profile = services.store(), session.profile()
    with st.expander("Scratchpad: try code on the lecture batch (not graded)"):
        code = st.text_area(
            "Code to try",
            value=store.draft(profile, key) or "",
            key=f"{key}:code",
            height=130,
            placeholder=PLACEHOLDER,
            help="Runs in the sandbox with the tensors in scope; autograd is refused here too.",
        )
        if st.button("Run", key=f"{key}:run", icon=":material/play_arrow:"):
            store.save_draft(profile, key, code)
            st.session_state[f"{key}:result"] = session.grader().scratch(exercise_id, code)
        result = st.session_state.get(f"{key}:result")
        if result is not None:
            _show(result)


def _show(result) -> None:
    """Show a scratchpad run: the sentence, the table of names, the exception, the prints."""
    (st.info if result.ok else st.error)(result.message)
    if result.rows:
        frame = pd.DataFrame(
            [
                {
                    "name": row.name,
                    "shape": str(row.shape) if row.shape is not None else "",
                    "dtype": row.dtype,
                    "values": row.preview or row.note,
                }
                for row in result.rows
            ]
        )
        st.dataframe(frame, hide_index=True, width="stretch")
    if result.error is not None:
        results.show_error(result.error)
    if result.stdout:
        st.code(result.stdout, language=None)
