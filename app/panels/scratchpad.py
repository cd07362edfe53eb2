"""The scratchpad of an exercise page: try code on the lecture batch, ungraded.

It stays open across submissions and reruns (a toggle kept in the session, not an expander the
page redraws folded), in the same monospace editor as the answer, run with Ctrl+Enter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app import services, session
from app.classroom import quotas
from app.panels import editor, ratelimit, workbench
from app.views import results

if TYPE_CHECKING:
    from grader import ExerciseView, TensorInfo

TITLE = "Scratchpad: try code on the {batch} (not graded)"
RUN_LABEL = "Run (Ctrl+Enter)"
HELP = (
    "Runs in the sandbox with the tensors in scope, e.g. {examples}; the exercise language is "
    "the answers' (no autograd, no imports)."
)


def help_text(tensors: tuple[TensorInfo, ...]) -> str:
    """Return the scratchpad's caption, its examples written with tensors in scope: a forward
    value and an upstream gradient (never the gradient the learner is asked to write)."""
    forward = [t.name for t in tensors if t.role == "forward"]
    given = [t.name for t in tensors if t.role == "given"]
    examples = [f"`print({name}.shape)`" for name in forward[:1]]
    examples += [f"`print({name}[:2])`" for name in (given or forward[1:])[:1]]
    return HELP.format(examples=" or ".join(examples) or "`print(...)`")


def batch_words(lecture_url: str) -> str:
    """Name the batch in scope: the lecture's own for an exercise it teaches, else neutral."""
    return "lecture batch" if lecture_url else "main batch"


def show(view: ExerciseView) -> None:
    """Show an editor whose code runs in the sandbox on this exercise's inputs, and its output.

    Nothing is graded or compared: the table lists what the code assigned (shape, dtype, first
    values), which is the lecture's way of working: look at shapes, then write the line.
    """
    exercise_id = view.id
    key = f"scratch:{exercise_id}"
    if not st.toggle(TITLE.format(batch=batch_words(view.lecture_url)), key=f"{key}:open"):
        return
    store, profile = services.store(), session.profile()
    if f"{key}:initial" not in st.session_state:  # the editor opens on it once per session
        st.session_state[f"{key}:initial"] = store.work.draft(profile, key) or ""
    with st.container(border=True, key=f"{key.replace(':', '-')}-box"):
        st.caption(help_text(view.tensors))
        kind = services.config().editor
        initial = st.session_state[f"{key}:initial"]
        event = editor.code_input(f"{key}:code", initial, kind=kind, lines=5, label=RUN_LABEL)
        if event is not None:  # a page that grows above it redraws it: it reopens on this
            workbench.keep_draft(key, event.code)
            st.session_state[f"{key}:initial"] = event.code
        if event is not None and event.submitted is not None:
            editor.taken(event)
            code = event.submitted
            if _may_run(code):
                st.session_state[f"{key}:result"] = session.grader().scratch(exercise_id, code)
        result = st.session_state.get(f"{key}:result")
        if result is not None:
            _show(result)


def _may_run(code: str) -> bool:
    """Return whether the learner may run code now (the submissions' rate and length limits,
    not their count a minute: a scratchpad run is not an attempt); if not, say so."""
    wait = workbench.limiter().wait((services.config().database_url, session.profile().id))
    if wait:
        st.warning(ratelimit.too_fast(wait), icon=":material/hourglass_top:")
        return False
    refusal = quotas.draft_refusal(code, services.config().quota_draft_kib)
    if refusal is not None:
        workbench.refuse(refusal)
    return refusal is None


def _show(result) -> None:
    """Show a scratchpad run: the sentence, the table of names, the exception, the prints."""
    (st.info if result.ok else st.error)(f"{result.message} {result.hint}".strip())
    if result.refused_construct:
        results.show_language(session.grader().catalog.course.language)
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
