"""Backprop Ninja: set the page and the navigation. Run with `streamlit run app/main.py`."""

import streamlit as st

from app import nav  # the project is installed (editable) by scripts/setup

st.set_page_config(page_title="Backprop Ninja", layout="wide")
st.navigation(nav.sections(), expanded=True).run()
