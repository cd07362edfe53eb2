"""What is wrong with the exercise files, and what is still being checked.

Every problem names its file and field or line: a file that cannot be read, an exercise id used
twice or taking a page's address, a scenario that fails to run (withdrawn with its exercises),
an exercise that `validate` would refuse. Exercises not proven yet are held back until they are.
"""

from __future__ import annotations

import streamlit as st

from app import classroom, services

LEARNERS = "This page is for the course's instructor."


def render() -> None:
    """List every problem with the exercise files, then the exercises still being checked (to
    an instructor only: the problems name server paths and answers)."""
    st.title("Problems with the exercise files")
    if not classroom.is_instructor():
        st.info(LEARNERS, icon=":material/lock:")
        return
    errors = services.catalog().errors
    if errors:
        st.markdown(
            f"{len(errors)} problem(s) found; what they affect is withdrawn and everything else "
            "works as usual. Fix the file and reload the page."
        )
    else:
        st.success("Every exercise file was read and every served exercise is sound.")
    for err in errors:
        st.error(f"`{err.where}`: {err.problem}", icon=":material/error:")
    _pending()


def _pending() -> None:
    """Say which exercises are still being proven (they appear once they pass)."""
    pending = sorted(services.proofs_pending())
    if pending:
        st.info(
            f"Being checked, and served once proven: {', '.join(f'`{i}`' for i in pending)}.",
            icon=":material/hourglass_top:",
        )
