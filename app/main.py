"""The app's frame (`streamlit run app/main.py`): the page set and titled by the course, the
navigation, and what every page shares around its screen: the safety guard and the sidebar."""

import logging

import streamlit as st

# installed (editable) by scripts/setup
from app import classroom, nav, services
from app.panels import safety, sidebar, visits
from app.services import metrics
from app.views import style

# An icon of our own: without one, Streamlit fetches each page's Material icon from a public
# font server to use as the favicon, and nothing may leave the machine (style.PAGE_ICON).
st.set_page_config(page_title=services.course_title(), page_icon=style.PAGE_ICON, layout="wide")
style.apply()  # what the theme cannot set: code colours that pass WCAG AA
try:
    classroom.check_session()  # every run asks the database whether this sign-in still lives
    page = nav.show()  # its icons read the learner's progress
    visits.start(page.url_path)
    if classroom.admitted():  # the classroom's sign-in page stands alone
        safety.guard()
        sidebar.show()
    page.run()
except services.StorageUnavailable as err:  # the database is restarting: nothing recorded is lost
    logging.getLogger("app.storage").warning("%s", err)
    metrics.failed("database")
    st.error(
        "The progress database is not answering right now. Try again in a moment: what you "
        "submitted before is kept.",
        icon=":material/cloud_off:",
    )
finally:
    services.start_background()  # after the first page is drawn, so that it does not wait
