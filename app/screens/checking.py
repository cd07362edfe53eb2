"""An exercise asked for by its address before it is proven (a bookmark opened in the first
seconds of a first start): say so, wait, and open the exercise once it is proven."""

from __future__ import annotations

import time

import streamlit as st

from app import links, services

CHECKING = "Checking the exercises..."
POLL_SECONDS = 0.5  # the proofs mark no single exercise done: the page looks again
RERUN_SECONDS = 3.0  # then reruns, so that a closed tab does not hold its thread for long
WITHDRAWN = "This exercise failed its checks and is withdrawn; the Problems page says why."


def render(exercise_id: str) -> None:
    """Wait (visibly) until exercise_id is proven, then rerun so that its own page opens."""
    st.title(services.declared().get(exercise_id).title)
    st.info(
        f"{CHECKING} This exercise opens here as soon as it is proven.",
        icon=":material/hourglass_top:",
    )
    with st.spinner(CHECKING):
        _wait(exercise_id)
    if exercise_id in services.proofs_failed():
        st.error(WITHDRAWN, icon=":material/error:")
        st.page_link(links.page(links.PROBLEMS))
        return
    st.rerun()  # proven: the navigation registers the exercise's own page at this address


def _wait(exercise_id: str) -> None:
    """Return once exercise_id is proven (or failed), or after RERUN_SECONDS."""
    deadline = time.monotonic() + RERUN_SECONDS
    while exercise_id in services.proofs_pending() and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
