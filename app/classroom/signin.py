"""The classroom mode's door: Streamlit's own sign-in (st.login, st.user, st.logout), and the
sign-in's row on the server that every run of a page checks (sessions.py).

Streamlit keeps the signed-in person in its own signed cookie and in st.user (the identity
token's claims); the provider is the `[auth]` section of .streamlit/secrets.toml, checked before
the server starts (`python -m app.config`). Anyone not signed in, whose claims are refused
(claims.py), or whose sign-in has ended (signed out, ended by an instructor, idle, expired),
gets the sign-in page only, saying why.
"""

from __future__ import annotations

import time

import streamlit as st

from app import services
from app.classroom import sessions
from app.classroom.claims import Refused
from app.classroom.people import INSTRUCTOR, NoIdentity, Person, Trust, person
from app.config import trust
from app.storage import StorageUnavailable

SIGN_IN_TITLE = "Sign in"
NO_IDENTITY = "Your school's sign-in did not say who you are (no issuer or subject)."
VERDICT = "classroom:verdict"  # this browser's sign-in, as last checked: (time, Verdict)
FRESH = 1.0  # seconds a check serves the calls of one run (main.py starts each run afresh)
NO_SIGN_IN = "no_sign_in"
SIGN_OUT_FAILED = "classroom:sign_out_failed"
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
    with an identity whose claims are accepted and whose sign-in still lives on the server."""
    if not enabled():
        return True
    if st.user.get("is_logged_in") is not True:
        return False
    try:
        current()
    except (NoIdentity, Refused):
        return False
    return verdict().live


def check_session() -> None:
    """Forget the last check of this browser's sign-in: the run that starts checks it again
    (main.py calls this first, so that every run of a page asks the database)."""
    st.session_state.pop(VERDICT, None)


def verdict() -> sessions.Verdict:
    """Return whether this browser's sign-in still admits it, checked at most FRESH ago."""
    kept = st.session_state.get(VERDICT)
    now = time.time()
    if kept is not None and now - kept[0] < FRESH:
        return kept[1]
    try:
        seen = sessions.seen(st.user.to_dict(), current().identity, now)
    except sessions.NoSignIn:
        return sessions.Verdict(False, NO_SIGN_IN)
    config = services.config()
    limits = (config.session_idle, config.session_absolute)
    found = sessions.Sessions(services.store()).check(seen, now, limits)
    st.session_state[VERDICT] = (now, found)
    return found


def current() -> Person:
    """Return the signed-in person (only once admitted() in the classroom mode)."""
    return person(st.user.to_dict(), trusted())


def trusted() -> Trust:
    """Return what makes an instructor: the configuration's, from the configured issuer
    (`NINJA_ISSUER`, else the one [auth]'s discovery address names)."""
    config = services.config()
    issuer = config.issuer or trust.issuer_of(_auth())
    return Trust(
        config.instructors, config.instructor_ids, config.instructor_claim, issuer, config.tenant
    )


def _auth() -> dict:
    """Return Streamlit's [auth] section ({} without one)."""
    try:
        return dict(st.secrets.get("auth", {}))
    except (FileNotFoundError, KeyError, st.errors.StreamlitSecretNotFoundError):
        return {}


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
    """Render the only page a signed-out visitor sees: what this is, why they are here (their
    claims refused, their sign-in ended), and the sign-in button."""
    st.title(f"{services.course_title()}: {SIGN_IN_TITLE.lower()}")
    st.write("This course is taught as a class: sign in with your school account to continue.")
    if st.user.get("is_logged_in") is True:
        why = _why_not()
        if why is not None:
            st.error(f"{why} Ask your instructor.", icon=":material/person_off:")
            st.button("Sign out", icon=":material/logout:", on_click=st.logout)
            return
        ended = REASONS.get(verdict().reason, REASONS[sessions.EXPIRED])
        st.info(f"Your session has ended: {ended} Sign in again to go on.", icon=":material/timer:")
        st.button("Sign in again", type="primary", icon=":material/login:", on_click=st.login)
        return
    st.button(SIGN_IN_TITLE, type="primary", icon=":material/login:", on_click=st.login)


REASONS = {
    sessions.SIGNED_OUT: "you signed out.",
    sessions.ENDED: "your instructor ended it.",
    sessions.IDLE: "it was not used for a while.",
    sessions.EXPIRED: "it is older than a sign-in may be.",
    NO_SIGN_IN: "your school's sign-in did not say when you signed in (iat).",
}


def _why_not() -> str | None:
    """Return why a signed-in token admits nobody (no identity, a refused claim), else None."""
    try:
        current()
    except NoIdentity:
        return NO_IDENTITY
    except Refused as err:
        return f"Your school's sign-in sent a `{err.claim}` this app cannot accept: it {err.why}."
    return None


def account_box() -> None:
    """Render who is signed in, their role, and the sign-out button, in the sidebar."""
    who = current()
    with st.sidebar:
        role = " (instructor)" if who.role == INSTRUCTOR else ""
        st.text(f"Signed in as {who.name}{role}")  # text: a name is never read as markdown
        if who.email and who.email != who.name:
            st.text(who.email)
        if st.session_state.pop(SIGN_OUT_FAILED, False):
            st.error("Signing out needs the progress database, which is not answering: try again.")
        st.button("Sign out", icon=":material/logout:", on_click=sign_out)
        st.caption(SIGN_OUT)


def sign_out() -> None:
    """End this browser's sign-in on the server (no copy of its cookie admits anyone after),
    then drop Streamlit's cookie; if the database cannot record it, say so and stay."""
    try:
        now = time.time()
        seen = sessions.seen(st.user.to_dict(), current().identity, now)
        sessions.Sessions(services.store()).sign_out(seen, now)
    except sessions.NoSignIn:
        pass  # no row could ever admit it: Streamlit's sign-out is all there is
    except StorageUnavailable:
        st.session_state[SIGN_OUT_FAILED] = True
        return
    st.session_state.pop(VERDICT, None)
    st.logout()
