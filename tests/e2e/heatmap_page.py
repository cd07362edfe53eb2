"""A page that draws known heatmaps as the app does (app/views/results.py's show_heatmap), for
tests/e2e/test_heatmap_colours.py: `streamlit run` it from the repository's root."""

from __future__ import annotations

import streamlit as st

from app.views.results import show_heatmap
from grader import Heatmap

# One row, three columns: yours, autograd's and their difference (yours − autograd).
CASES = {
    # diffs -0.1, 0, +0.5: the largest is positive; yours hold the smallest and largest value
    "positive": ([0.2, 1.0, 2.0], [0.3, 1.0, 1.5]),
    # diffs +0.1, 0, -0.4: the largest is negative; autograd's hold the smallest and largest
    "negative": ([0.3, 1.0, 1.6], [0.2, 1.0, 2.0]),
}


def heatmap(yours: list[float], autograd: list[float]) -> Heatmap:
    """Return the heatmap of a one-row gradient whose last two cells are wrong."""
    diff = [round(a - b, 6) for a, b in zip(yours, autograd, strict=True)]
    return Heatmap([yours], [autograd], [diff], rows=(0,), cols=(0, 2))


st.set_page_config(layout="wide")  # as app/main.py sets it
# each its own gradient: a heatmap's folded table of values is keyed by it
for name, (case, (yours, autograd)) in zip(("dW1", "db1"), CASES.items(), strict=True):
    with st.container(key=f"heatmap-{case}"):
        show_heatmap(heatmap(yours, autograd), name)
