"""Progress: attempts, solved and time spent per exercise, as a table and a CSV; reset."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import nav, services, session

CONFIRM_KEY = "progress:confirm_reset"


def render() -> None:
    """Render the progress page for the current profile."""
    profile = session.profile()
    st.title("Progress")
    st.caption(f"Profile: **{profile.name}**")
    table = progress_table(services.catalog(), services.store().progress(profile))
    solved = int((table["status"] == "solved").sum())
    left, middle, right = st.columns(3)
    left.metric("Solved", f"{solved} of {len(table)}")
    middle.metric("Attempts", int(table["attempts"].sum()))
    right.metric("Time spent", _duration(float(table["minutes"].sum()) * 60))
    st.dataframe(table, hide_index=True, width="stretch", height=38 + 35 * len(table))
    st.download_button(
        "Download as CSV",
        csv_text(table).encode("utf-8"),
        file_name=f"backprop-ninja-{profile.name}.csv",
        mime="text/csv",
        icon=":material/download:",
        key="progress:csv",
    )
    _reset(profile)


def progress_table(catalog, progress) -> pd.DataFrame:
    """Return one row per exercise (and whole pass), in teaching order."""
    by_id = {p.exercise_id: p for p in progress}
    rows = [(e.id, e.title) for e in catalog.exercises]
    rows += [
        (nav.whole_pass_id(s.slug), f"Whole pass: {s.title}")
        for s in catalog.scenarios
        if s.whole_pass
    ]
    return pd.DataFrame(
        [_row(key, title, by_id.get(key)) for key, title in rows],
        columns=["exercise", "title", "status", "attempts", "minutes", "hints", "revealed"],
    )


def csv_text(table: pd.DataFrame) -> str:
    """Return the progress table as CSV text."""
    return table.to_csv(index=False)


def _row(key: str, title: str, p) -> dict:
    """Return one exercise's figures."""
    if p is None:
        return {
            "exercise": key,
            "title": title,
            "status": "not started",
            "attempts": 0,
            "minutes": 0.0,
            "hints": 0,
            "revealed": False,
        }
    status = "solved" if p.solved else "attempted" if p.attempts else "not started"
    return {
        "exercise": key,
        "title": title,
        "status": status,
        "attempts": p.attempts,
        "minutes": round(p.time_spent / 60, 1),
        "hints": p.hints,
        "revealed": p.revealed,
    }


def _duration(seconds: float) -> str:
    """Format seconds as "1 h 05 min", "12 min" or "40 s"."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _reset(profile) -> None:
    """Delete the profile's progress, after an explicit confirmation."""
    if not st.session_state.get(CONFIRM_KEY):
        if st.button("Reset progress…", icon=":material/delete:", key="progress:reset"):
            st.session_state[CONFIRM_KEY] = True
            st.rerun()
        return
    st.warning(
        f"Delete every attempt, draft, hint and reveal of **{profile.name}**? "
        "This cannot be undone."
    )
    yes, no = st.columns(2)
    if yes.button("Yes, delete my progress", type="primary", key="progress:reset_yes"):
        services.store().reset(profile)
        st.session_state[CONFIRM_KEY] = False
        st.toast("Progress deleted.")
        st.rerun()
    if no.button("Cancel", key="progress:reset_no"):
        st.session_state[CONFIRM_KEY] = False
        st.rerun()
