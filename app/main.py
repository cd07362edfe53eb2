"""The app: set the page, titled by the course, and the navigation (`streamlit run app/main.py`)."""

import streamlit as st

from app import nav, services  # the project is installed (editable) by scripts/setup

# An icon of our own: without one, Streamlit fetches each page's Material icon from a public
# font server to use as the favicon, and nothing may leave the machine.
st.set_page_config(page_title=services.course_title(), page_icon="🥷", layout="wide")
st.navigation(nav.sections(), expanded=True).run()
