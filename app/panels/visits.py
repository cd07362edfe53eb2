"""Per-visit state: what a page does once on arrival, and the time spent since then."""

from __future__ import annotations

import time

import streamlit as st

PAGE_KEY, VISIT_KEY = "visit:page", "visit:clocks"
IDLE_CAP = 30 * 60  # seconds: a tab left open overnight does not count as time spent


def start(page: str) -> None:
    """Begin a new visit when the session moves to another page."""
    if st.session_state.get(PAGE_KEY) != page:
        st.session_state[PAGE_KEY] = page
        st.session_state[VISIT_KEY] = {}


def arrived(key: str) -> bool:
    """Return True on the first render of `key` in this visit, and start its clock."""
    clocks = st.session_state.setdefault(VISIT_KEY, {})
    if key in clocks:
        return False
    clocks[key] = time.time()
    return True


def time_spent(key: str) -> float:
    """Return the seconds since arriving or since the last call, at most IDLE_CAP."""
    clocks = st.session_state.setdefault(VISIT_KEY, {})
    now = time.time()
    since = clocks.get(key, now)
    clocks[key] = now
    return min(now - since, IDLE_CAP)
