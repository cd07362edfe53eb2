"""How the instructor's dashboard says what the class did: a misconception in words, a median
that may not exist yet, bar charts whose labels are never cut, and a dashboard that refreshes
itself and says when it last did (app/screens/instructor.py draws the rest)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

if TYPE_CHECKING:
    from grader import Catalog

REFRESH = 20  # seconds between two redraws of an open dashboard
NO_MEDIAN = "–"  # nothing solved yet: no median (an empty cell, not "None")
BAR_HEIGHT = 22  # px per bar: a label per line, never cut


@st.fragment(run_every=REFRESH)
def refreshing(draw: Callable[[], None]) -> None:
    """Draw the dashboard, and again every REFRESH seconds (only this part of the page is run
    again: a fragment on a timer), under a line saying when it last did."""
    now = time.strftime("%H:%M:%S UTC", time.gmtime())
    st.caption(f"Updated at {now}; it refreshes itself every {REFRESH} s.")
    draw()


def said(catalog: Catalog, item: str, misconception: str) -> str:
    """Return a misconception recorded at an item in words (its listed mistake's name, or the
    shared id's meaning); the id itself when the course no longer says it."""
    return catalog.misconception_words(item, misconception) or misconception


def median(value: float | None, scale: float = 1.0) -> str:
    """Return a median for a table's cell, or NO_MEDIAN when there is none yet."""
    return NO_MEDIAN if value is None else f"{value / scale:.3g}"


def bar_chart(frame: pd.DataFrame, label: str, colours: dict[str, str]) -> None:
    """Draw horizontal stacked bars, one per row of `frame` (its `label` column), a colour per
    other column, each label whole (Streamlit's bar chart cuts long ones)."""
    values = [c for c in frame.columns if c != label]
    long = frame.melt(id_vars=[label], value_vars=values, var_name="kind", value_name="count")
    st.vega_lite_chart(long, bar_spec(label, colours), width="stretch")


def bar_spec(label: str, colours: dict[str, str]) -> dict:
    """Return the Vega-Lite spec of bar_chart: labels never cut (`labelLimit` 0), whole counts."""
    return {
        "mark": {"type": "bar"},
        "height": {"step": BAR_HEIGHT},
        "encoding": {
            "y": {
                "field": label,
                "type": "nominal",
                "sort": None,
                "title": None,
                "axis": {"labelLimit": 0},
            },
            "x": {
                "field": "count",
                "type": "quantitative",
                "title": None,
                "stack": "zero",
                "axis": {"format": "d", "tickMinStep": 1},  # counts: 0, 1, 2, never 0.10
            },
            "color": {
                "field": "kind",
                "type": "nominal",
                "title": None,
                "scale": {"domain": list(colours), "range": list(colours.values())},
                "legend": {"orient": "top"},
            },
        },
    }


WORDS = {"top misconception": st.column_config.TextColumn(width="large")}  # said whole
