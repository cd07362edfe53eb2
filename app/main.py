"""The app: set the page, titled by the course, and the navigation (`streamlit run app/main.py`)."""

import streamlit as st

from app import nav, services  # the project is installed (editable) by scripts/setup

st.set_page_config(page_title=services.catalog().course.title, layout="wide")
st.navigation(nav.sections(), expanded=True).run()
