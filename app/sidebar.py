"""The sidebar on every page: pick or create one of this browser's learner profiles."""

from __future__ import annotations

import streamlit as st

from app import identity, session
from app.storage import StorageError

PICK_KEY = "sidebar:profile"
NEW_KEY = "sidebar:new_profile"


def show() -> None:
    """Render the profile picker; switching profile reruns the page with that progress."""
    current = session.profile()
    profiles = session.profiles()
    names = [p.name for p in profiles]
    with st.sidebar:
        picked = st.selectbox(
            "Learner profile",
            names,
            index=names.index(current.name),
            key=PICK_KEY,
            help="Progress is kept per profile; this browser sees only its own profiles.",
        )
        if picked != current.name:
            session.switch_profile(next(p for p in profiles if p.name == picked))
            st.rerun()
        with st.popover("New profile", icon=":material/person_add:"):
            _new_profile_form()
    identity.save_cookie()


def _new_profile_form() -> None:
    """Create a profile by name and switch to it."""
    with st.form("new_profile", clear_on_submit=True, border=False):
        name = st.text_input("Name", key=NEW_KEY, max_chars=40)
        if not st.form_submit_button("Create"):
            return
    try:
        created = session.new_profile(name)
    except StorageError as err:
        st.error(str(err))
        return
    session.switch_profile(created)
    st.session_state.pop(PICK_KEY, None)
    st.rerun()
