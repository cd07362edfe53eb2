"""Exercise 4, training with the learner's own backward pass: a placeholder (issue 4)."""

from __future__ import annotations

import streamlit as st

PLAN = """
In the lecture's last exercise you train the `n_hidden=200` MLP for 200,000 steps with **your
own backward pass** instead of `loss.backward()`, calibrate batchnorm on the training set, and
sample 20 names. The lecture reached train loss 2.0705 / val loss 2.1099.

This page will run that training in a sandboxed worker, stream the loss curve, and keep your
finished runs in your progress. It is not built yet: it is tracked as issue 4.
"""


def render() -> None:
    """Render the placeholder for the training page."""
    st.title("Exercise 4: train the MLP")
    st.info(
        "Coming soon: training is planned for a later release (issue 4).",
        icon=":material/construction:",
    )
    st.markdown(PLAN)
