"""Backprop Ninja: set the page and the navigation. Run with `streamlit run app/main.py`."""

import sys
from pathlib import Path

# `streamlit run` puts only app/ on sys.path; the app imports grader/ and data/ beside it.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import streamlit as st  # noqa: E402

from app import nav  # noqa: E402

# An icon of our own: without one, Streamlit fetches each page's Material icon from a public
# font server to use as the favicon, and nothing may leave the machine.
st.set_page_config(page_title="Backprop Ninja", page_icon="🥷", layout="wide")
st.navigation(nav.sections(), expanded=True).run()
