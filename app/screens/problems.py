"""The exercise files that could not be read, with what is wrong in each."""

from __future__ import annotations

import streamlit as st

from app import services


def render() -> None:
    """List every unreadable exercise file and its validation error."""
    errors = services.catalog().errors
    st.title("Unreadable exercise files")
    if not errors:
        st.success("Every exercise file was read.")
        return
    st.markdown(
        f"{len(errors)} file(s) could not be read; every other exercise works as usual. "
        "Fix the file and reload the page."
    )
    for err in errors:
        st.error(f"`{err.where}`: {err.problem}", icon=":material/error:")
