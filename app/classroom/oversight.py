"""The dashboard's sign-ins and limits (a section of app/screens/instructor.py): who is signed in
now, with a button that ends one person's sign-ins on every replica, and which learners met a
limit (quotas.py), how often and when last.

    >>> oversight.render(view.class_learners())
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app import services
from app.classroom.quotas import Quotas
from app.classroom.sessions import Sessions

if TYPE_CHECKING:
    from app.classroom.classview import Learner

LIMITS = {
    "runs": "training runs at once",
    "word_lists": "word lists a day",
    "attempts": "submissions a minute",
    "draft": "length of code",
}


def render(learners: list[Learner]) -> None:
    """Draw who is signed in (and end a person's sign-ins), then who met a limit."""
    _signed_in()
    _limits_met(learners)


def _signed_in() -> None:
    """The live sign-ins, and the button that ends one person's."""
    config, now = services.config(), time.time()
    sessions = Sessions(services.store())
    live = sessions.live(now, (config.session_idle, config.session_absolute))
    st.subheader("Signed in now")
    st.caption(
        f"A sign-in ends when its person signs out, after {config.session_idle / 3600:g} h "
        f"unused, {config.session_absolute / 3600:g} h after signing in, or when you end it here."
    )
    if not live:
        st.info("Nobody is signed in.", icon=":material/person_off:")
        return
    table = pd.DataFrame.from_records(
        {"person": s.name or s.owner, "identity": s.owner, "signed in": _at(s.issued)}
        | {"last seen": _at(s.last_seen)}
        for s in live
    )
    st.dataframe(table, hide_index=True)
    names = {s.owner: s.name or s.owner for s in live}
    owner = st.selectbox(
        "End the sign-ins of", list(names), format_func=names.get, index=None,
        placeholder="Pick a person", key="oversight_owner",
    )  # fmt: skip
    if st.button("End their sessions", icon=":material/logout:", disabled=owner is None):
        ended = sessions.end(owner, time.time())
        st.success(f"Ended {ended} sign-in(s) of {names[owner]} on every replica.")


def _limits_met(learners: list[Learner]) -> None:
    """Who met which limit, how often, when last."""
    st.subheader("Limits met")
    hits = Quotas(services.store()).hits()
    if not hits:
        st.success("No learner has met a limit.", icon=":material/thumb_up:")
        return
    names = {p.profile_id: p.name for p in learners}
    st.dataframe(
        pd.DataFrame.from_records(
            {"learner": names.get(h.profile_id, f"#{h.profile_id}")}
            | {"limit": LIMITS.get(h.limit, h.limit), "times": h.count, "last": _at(h.last_at)}
            for h in hits
        ),
        hide_index=True,
    )


def _at(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d %H:%M UTC")
