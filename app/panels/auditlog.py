"""The dashboard's audit log (its "Audit log" tab) and the dashboard's own entries in it: a
gradebook downloaded, a learner's history opened (app/storage/auditlog.py keeps them; the
command line records exports, deletions and re-grades, the sign-in records role changes).

    >>> auditlog.gradebook_downloaded(auditlog.actor(), "gradebook.csv", learners=30)
    >>> auditlog.learner_viewed(profile_id)      # the Learner tab's choice, as a callback
    >>> auditlog.render()                        # the tab
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pandas as pd
import streamlit as st

from app import classroom, services
from app.storage import auditlog

LOCAL = auditlog.Actor("local", "the instructor at this machine (local mode)")
EMPTY = "Nothing recorded yet: exports, deletions, re-grades, gradebook downloads, role changes."
ABOUT = (
    "Each action that read or changed learners' data: who, when, what. The command line records "
    "exports, deletions (`python -m app.storage`) and re-grades (`python -m app.regrade`); this "
    "dashboard records gradebook downloads and learners' histories opened; a sign-in records a "
    "role the configuration changed. `python -m app.storage audit` prints the log as JSON."
)
WHOLE_CLASS = "the class"


def actor() -> auditlog.Actor:
    """Return who is acting here: the signed-in instructor, or the local mode's instructor."""
    if not classroom.enabled():
        return LOCAL
    who = classroom.current()
    return auditlog.Actor(who.identity, who.name or who.email)


def gradebook_downloaded(who: auditlog.Actor, file_name: str, learners: int) -> None:
    """Record that who downloaded the class's gradebook as file_name (called where the file is
    made, outside the page's run: who is read on the page, with `actor()`)."""
    detail = {"file": file_name, "learners": learners}
    services.store().audit.record(who, auditlog.GRADEBOOK, auditlog.CLASS, detail)


def learner_viewed(key: str) -> None:
    """Record that the learner chosen in the select box `key` had their history opened."""
    store, chosen = services.store(), st.session_state.get(key)
    profile = None if chosen is None else store.learners.profile(chosen)
    if profile is not None:
        store.audit.record(actor(), auditlog.VIEW, profile.owner, {"profiles": [profile.id]})


def render() -> None:
    """Draw the latest entries of the course, newest first."""
    st.caption(ABOUT)
    entries = services.store().audit.entries()
    if not entries:
        st.info(EMPTY, icon=":material/history:")
        return
    table = pd.DataFrame.from_records(
        {
            "when": datetime.fromtimestamp(e.created_at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
            "who": e.actor_name or e.actor,
            "action": e.action,
            "whose data": e.subject_name or e.subject or WHOLE_CLASS,
            "what": json.dumps(e.detail, ensure_ascii=False),
        }
        for e in entries
    )
    st.dataframe(table, hide_index=True)
