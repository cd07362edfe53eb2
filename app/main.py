"""The app's frame (`streamlit run app/main.py`): the page set and titled by the course, the
navigation, and what every page shares around its screen: the safety guard and the sidebar."""

import streamlit as st

# installed (editable) by scripts/setup
from app import classroom, nav, safety, services, sidebar, visits
from app.views import style

# An icon of our own: without one, Streamlit fetches each page's Material icon from a public
# font server to use as the favicon, and nothing may leave the machine.
st.set_page_config(page_title=services.course_title(), page_icon="🥷", layout="wide")
style.apply()  # what the theme cannot set: code colours that pass WCAG AA
page = st.navigation(nav.sections(), expanded=True)
visits.start(page.url_path)
if classroom.admitted():  # the classroom's sign-in page stands alone
    safety.guard()
    sidebar.show()
try:
    page.run()
finally:
    services.start_background()  # after the first page is drawn, so that it does not wait
