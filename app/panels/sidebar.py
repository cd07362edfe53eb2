"""The sidebar on every page: pick or create one of this browser's learner profiles."""

from __future__ import annotations

import streamlit as st

from app import classroom, session
from app.config import identity
from app.storage import StorageError

PICK_KEY = "sidebar:profile"
NEW_KEY = "sidebar:new_profile"
ERROR_KEY = "sidebar:new_profile_error"


def show() -> None:
    """Render the profile picker (the classroom mode: who is signed in, and the sign-out button);
    switching profile reruns the page with that progress."""
    if classroom.enabled():
        classroom.account_box()
        return
    current = session.profile()
    profiles = session.profiles()
    names = [p.name for p in profiles]
    if st.session_state.get(PICK_KEY) not in names:
        st.session_state[PICK_KEY] = current.name  # the picker's value, set once (no index)
    with st.sidebar:
        picked = st.selectbox(
            "Learner profile",
            names,
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
        st.text_input("Name", key=NEW_KEY, max_chars=40)
        st.form_submit_button("Create", on_click=_create)
    error = st.session_state.pop(ERROR_KEY, None)
    if error:
        st.error(error)


def _create() -> None:
    """Create the profile named in the form and pick it.

    A callback, so that it runs before the page: the picker can then be set to the new profile
    (the browser would otherwise send back the old choice and switch to it again).
    """
    try:
        created = session.new_profile(st.session_state.get(NEW_KEY, ""))
    except StorageError as err:
        st.session_state[ERROR_KEY] = str(err)
        return
    session.switch_profile(created)
    st.session_state[PICK_KEY] = created.name
