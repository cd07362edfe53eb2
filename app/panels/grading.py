"""The grading policy on the instructor dashboard: what course.toml's `[grading]`, `[points]`,
`[deadlines]` and extensions.csv say, the exercises whose reference answer fails (the app's own
proofs), and the cells a regrade changed; and the gradebook's files, scored by the one scoring
function (grader/gradebook/policy.py) as grade-batch scores them.

    >>> grading.render(catalog, names)          # a section of the dashboard's Gradebook tab
    >>> grading.gradebook_files(names, catalog)  # {'csv': ..., 'wide.csv': ..., 'json': ...}
"""

from __future__ import annotations

import json
from datetime import UTC
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app import services
from app.classroom import classbook
from app.classroom.answers import Answers

if TYPE_CHECKING:
    from app.classroom.classview import Learner
    from grader import Catalog

PARTIAL = {
    "none": "none: an item is solved or it is not",
    "per_gradient": "per gradient: a whole pass or a multi-answer exercise earns the share of "
    "its gradients that are right",
    "per_check": "per check: a whole pass or a multi-answer exercise earns the share of its "
    "checks passed",
}
REGRADES = {
    "latest": "the latest verdict counts: a fixed exercise may take credit away",
    "keep_credit": "a regrade never takes credit away (the earlier credit is kept)",
}
DOUBT = "Its verdicts in the gradebook may be wrong."
NOT_PROVEN = "not proven yet (the app proves each exercise in the background)"


def late_rule(grading) -> str:
    """Return the late policy in words."""
    if grading.late == "per_day":
        return (
            f"{grading.late_percent_per_day:g}% of the credit lost per day begun after the due "
            f"time, never below {grading.late_floor_percent:g}%"
        )
    if grading.late == "cutoff":
        return "nothing after the due time"
    return "flagged late, full credit"


def render(catalog: Catalog, names: dict[int, str]) -> None:
    """Draw the policy, the references that fail, and (on request) the cells regrades changed."""
    course = catalog.course
    grading = course.grading
    st.subheader("Grading policy")
    st.markdown(
        f"- **Partial credit**: {PARTIAL[grading.partial_credit]}\n"
        f"- **Late work**: {late_rule(grading)}\n"
        f"- **Regrades**: {REGRADES[grading.regrades]}\n"
        f"- **Extensions**: {len(course.extensions)} (extensions.csv beside course.toml)"
    )
    st.dataframe(_items(catalog), hide_index=True)
    for item, problem in sorted(references().items()):
        st.warning(
            f"`{item}`: {problem or NOT_PROVEN}. Its verdicts in the gradebook may be wrong."
        )
    if st.toggle("Show the cells a regrade changed", key="gradebook_regraded"):
        st.dataframe(_regraded(gradebook_files(names, catalog)), hide_index=True)


def _items(catalog: Catalog) -> pd.DataFrame:
    """Return each item's points and due time."""
    course = catalog.course
    return pd.DataFrame.from_records(
        {
            "item": item,
            "points": course.points_of(item),
            "due": _due(course.deadline_of(item)),
        }
        for item in classbook.course_items(catalog)
    )


def _due(when) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") if when else ""


def _regraded(files: dict[str, bytes]) -> pd.DataFrame:
    """Return the cells a regrade changed, read from the book: learner, item, was, now."""
    book = json.loads(files["json"])
    return pd.DataFrame.from_records(
        {
            "learner": learner["learner"],
            "item": mark["item"],
            "was": f"{mark['was_status']} ({mark['was_version']})",
            "now": f"{mark['status']} ({mark['version']})",
            "credit kept": mark["credit_kept"],
        }
        for learner in book["learners"]
        for mark in learner["marks"]
        if mark["regraded"]
    )


def references() -> dict[str, str]:
    """Return {exercise id: why it failed its proof} from the app's proofs (its reference answer
    graded, its starter, zeros and listed mistakes), the ones not proven yet with ""."""
    failed = {
        i: "; ".join(f.problem for f in findings)
        for i, findings in services.proofs_failed().items()
    }
    return failed | {i: "" for i in services.proofs_pending() if i not in failed}


def gradebook_files(
    names: dict[int, str], catalog: Catalog, learners: list[Learner] = (), lms=None
) -> dict[str, bytes]:
    """Return the gradebook's three files, every recorded answer scored under the policy, each
    learner shown by their name (learners') beside their key (names); with an LMS's roster
    export, its import file too."""
    answers = Answers(services.store()).class_answers()
    return classbook.gradebook_files(answers, names, catalog, references(), learners, lms)
