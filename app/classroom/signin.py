"""The classroom mode's door: Streamlit's own sign-in (st.login, st.user, st.logout).

Streamlit keeps the signed-in person in its own signed cookie and in st.user (the identity
token's claims); the provider is the `[auth]` section of .streamlit/secrets.toml, checked before
the server starts (`python -m app.config`). Anyone not signed in gets the sign-in page only.
"""

from __future__ import annotations

import streamlit as st

from app import services
from app.classroom.people import INSTRUCTOR, NoIdentity, Person, person

SIGN_IN_TITLE = "Sign in"
NO_IDENTITY = "Your school's sign-in did not say who you are (no issuer or subject)."
# Streamlit ends the session at the provider too (OIDC RP-initiated logout) where it offers an
# end-session endpoint: the provider's own page comes first, and may ask to confirm.
SIGN_OUT = (
    "Signing out also signs you out of your school's sign-in, whose own page may ask you to "
    "confirm; it then brings you back here."
)


def enabled() -> bool:
    """Return True in the classroom mode."""
    return services.config().classroom


def admitted() -> bool:
    """Return True if this session may see the course: the local mode, or a person signed in
    with an identity (a token without issuer or subject does not admit anyone)."""
    if not enabled():
        return True
    if st.user.get("is_logged_in") is not True:
        return False
    try:
        current()
    except NoIdentity:
        return False
    return True


def current() -> Person:
    """Return the signed-in person (only once admitted() in the classroom mode)."""
    config = services.config()
    return person(st.user.to_dict(), config.instructors, config.instructor_claim)


def is_instructor() -> bool:
    """Return True if this session is the course's instructor: in the local mode whoever runs
    the app with `NINJA_INSTRUCTOR=1` (off by default: a learner's copy), in the classroom mode a
    signed-in instructor."""
    config = services.config()
    if not config.classroom:
        return config.instructor
    return admitted() and current().role == INSTRUCTOR


def sign_in_entry():
    """Return the navigation's one page for a visitor who has not signed in: every address
    leads there."""
    return st.Page(sign_in_page, title=SIGN_IN_TITLE, icon=":material/login:", default=True)


def sign_in_page() -> None:
    """Render the only page a signed-out visitor sees: what this is, and the sign-in button."""
    st.title(f"{services.course_title()}: {SIGN_IN_TITLE.lower()}")
    st.write("This course is taught as a class: sign in with your school account to continue.")
    if st.user.get("is_logged_in") is True:  # signed in, but the token names nobody
        st.error(f"{NO_IDENTITY} Ask your instructor.", icon=":material/person_off:")
        st.button("Sign out", icon=":material/logout:", on_click=st.logout)
        return
    st.button(SIGN_IN_TITLE, type="primary", icon=":material/login:", on_click=st.login)


def account_box() -> None:
    """Render who is signed in, their role, and the sign-out button, in the sidebar."""
    who = current()
    with st.sidebar:
        role = " (instructor)" if who.role == INSTRUCTOR else ""
        st.text(f"Signed in as {who.name}{role}")  # text: a name is never read as markdown
        if who.email and who.email != who.name:
            st.text(who.email)
        st.button("Sign out", icon=":material/logout:", on_click=st.logout)
        st.caption(SIGN_OUT)
