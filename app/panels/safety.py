"""Tell the learner, on every page, when the sandbox runs with fewer layers than it should."""

from __future__ import annotations

import streamlit as st

from app import services


def guard() -> None:
    """Show a banner for missing sandbox layers; stop the page when every layer is required."""
    try:
        missing = services.missing_layers()
    except Exception as e:  # only with NINJA_REQUIRE_ALL_LAYERS: refuse to serve
        st.error(f"Backprop Ninja will not grade on this machine: {e}", icon=":material/block:")
        st.caption("Run `python -m grader doctor` for details, or unset NINJA_REQUIRE_ALL_LAYERS.")
        st.stop()
    if missing:
        names = ", ".join(sorted(missing))
        st.warning(
            f"The sandbox runs without some of its layers ({names}); answers are still graded, "
            "with less protection. `python -m grader doctor` says why.",
            icon=":material/shield:",
        )
