"""The app: set the page, titled by the course, and the navigation (`streamlit run app/main.py`)."""

import sys
from pathlib import Path

# `streamlit run` puts only app/ on sys.path; the app imports grader/ and data/ beside it.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import streamlit as st  # noqa: E402

from app import nav, services  # noqa: E402

st.set_page_config(page_title=services.catalog().course.title, layout="wide")
st.navigation(nav.sections(), expanded=True).run()
