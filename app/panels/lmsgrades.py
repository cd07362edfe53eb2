"""The grades sent to the LMS, on the instructor dashboard: "Sync grades" sends every launched
learner's scores to the LMS they came from (app/classroom/lti/grades.py: the one scoring
function's marks, as the gradebook), and the scores an LMS refused (and has not taken since)
are listed with its reason.
"Read the roster" reads each course's roster (NRPS) now (app/classroom/lti/roster.py).

    >>> lmsgrades.render(catalog)   # a section of the dashboard's Gradebook tab
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app import services
from app.classroom.lti import grades, keys, roster

if TYPE_CHECKING:
    from app.storage.lti import Pushed
    from grader import Catalog

NONE = "No LMS is registered: learners sign in here, not from an LMS (docs/lms.md)."
NO_KEY = "The tool has no key to sign its requests: `python -m app.classroom.lti new-key`."


def render(catalog: Catalog) -> None:
    """Draw the Sync button and the scores an LMS refused."""
    st.subheader("Grades in your LMS")
    rows = services.store().lti
    if not rows.registrations():
        st.caption(NONE)
        return
    key = keys.tool_key()
    if key is None:
        st.warning(NO_KEY, icon=":material/key_off:")
    elif st.button("Sync grades", icon=":material/sync:", key="lms_sync"):
        sent = grades.sync(services.store(), catalog, key)
        st.info(f"{sum(p.ok for p in sent)} of {len(sent)} score(s) taken by the LMS.")
    if key is not None and roster.Rosters(services.store()).rosters():
        _read_rosters(key)
    refused = [p for p in _latest(rows.pushes()) if not p.ok]
    if refused:
        st.dataframe(
            pd.DataFrame.from_records(
                {"learner": p.identity, "item": p.item, "status": p.status, "why": p.answer}
                for p in refused
            ),
            hide_index=True,
        )


def _latest(pushes: list[Pushed]) -> list[Pushed]:
    """Return the latest push of each learner's item (pushes: newest first): a score refused,
    then taken (after the next solve, or a Sync), is no longer listed."""
    found: dict[tuple[str, str], Pushed] = {}
    for p in pushes:
        found.setdefault((p.identity, p.item), p)
    return list(found.values())


def _read_rosters(key: tuple[str, str]) -> None:
    """Draw "Read the roster": every course's roster read now, what each gave said."""
    if not st.button("Read the roster", icon=":material/group_add:", key="lms_read_roster"):
        return
    for done in roster.read_all(services.store(), key):
        where = done.roster.title or done.roster.url
        if done.error:
            st.warning(f"{where}: the roster was not read: {done.error}", icon=":material/error:")
        else:
            st.info(f"{where}: roster read, {done.added} new person(s).")
