"""The gradebook an LMS imports as it is, on the instructor dashboard: the instructor uploads the
LMS's roster export, picks the LMS, and downloads its import file, scored by the one scoring
function as grade-batch's `--format` writes it (grader/gradebook/lms.py, docs/gradebook.md),
with the SIS ids the LMS said of its learners (a roster row matched by it, an empty SIS cell
filled).

    >>> lmsbook.render(names, catalog, learners)   # a section of the dashboard's Gradebook tab
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app import services
from app.classroom.lti.roster import Rosters
from app.panels import auditlog, grading
from grader import BadInput
from grader.gradebook import LmsRoster

if TYPE_CHECKING:
    from app.classroom.classview import Learner
    from grader import Catalog

NAMES = {"canvas": "Canvas", "moodle": "Moodle", "blackboard": "Blackboard"}
HOW = (
    "Export the roster from your LMS (Canvas: Grades, Export; Moodle: Grades, Export, Plain "
    "text file, or Participants, Download; Blackboard: Grade Center, Work Offline, Download) "
    "and upload it here: every student on it gets a row, matched to a learner by login id or "
    "e-mail address."
)


def render(names: dict[int, str], catalog: Catalog, learners: list[Learner] = ()) -> None:
    """Draw the LMS's roster upload and its import file's download (names: each learner's key,
    as the gradebook names them; learners: to show their names)."""
    st.subheader("A book for your LMS")
    st.caption(HOW)
    lms = st.selectbox("LMS", LmsRoster.FORMATS, format_func=NAMES.get, key="lms_format")
    sent = st.file_uploader("Its roster export (CSV)", type=["csv", "xls", "txt"], key="lms_roster")
    if sent is None:
        return
    try:
        roster = LmsRoster.parse(sent.getvalue(), lms, sent.name).with_sis(_sis(names, learners))
    except BadInput as err:
        st.error(str(err), icon=":material/error:")
        return
    keys = list(names.values())
    unknown = roster.unmatched(keys)
    st.markdown(
        f"{len(roster.students)} student(s) on the roster; {len(unknown)} learner(s) on none."
    )
    if unknown:
        st.caption("Not on the roster, so not in its file: " + ", ".join(unknown))
    who, suffix = auditlog.actor(), f"{lms}.csv"

    def file() -> bytes:  # built when the button is pressed
        auditlog.gradebook_downloaded(who, f"gradebook.{suffix}", len(keys))
        return grading.gradebook_files(names, catalog, learners, lms=roster)[suffix]

    st.download_button(
        f"Download gradebook.{suffix}",
        file,
        file_name=f"gradebook.{suffix}",
        mime="text/csv",
        icon=":material/download:",
        key="gradebook_lms",
        on_click="ignore",  # no rerun: its deferred file is not replaced while it is fetched
    )


def _sis(names: dict[int, str], learners: list[Learner]) -> dict[str, str]:
    """Return {learner key: SIS id} of the learners whose LMS said theirs (its roster or their
    launch: app/classroom/lti/roster.py), so the book matches and carries them."""
    said = Rosters(services.store()).sis_ids()
    return {
        names[p.profile_id]: said[p.owner]
        for p in learners
        if p.owner in said and p.profile_id in names
    }
