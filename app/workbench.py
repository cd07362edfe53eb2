"""The editor's life on a page: open on the saved draft, keep drafts, hand over submissions.

Used by every page with an editor (an exercise, the whole pass), keyed by what the attempts are
recorded under. A submission is parked in the session before grading, so that a rerun which
interrupts the grading run (a late editor event) grades it instead of losing it.
"""

from __future__ import annotations

import streamlit as st

from app import editor, ratelimit, services, session, visits
from app.storage import Attempt


def editor_event(key: str, starter: str, lines: int = 8) -> editor.EditorEvent | None:
    """Show the editor for key, opened on the saved draft (else starter); save each change."""
    if visits.arrived(key):  # a fresh editor on each visit, so it shows the latest draft
        st.session_state.pop(f"initial:{key}", None)
        st.session_state[f"version:{key}"] = st.session_state.get(f"version:{key}", 0) + 1
    if f"initial:{key}" not in st.session_state:
        draft = services.store().draft(session.profile(), key)
        st.session_state[f"initial:{key}"] = starter if draft is None else draft
    widget = f"editor:{key}:{st.session_state.get(f'version:{key}', 0)}"
    kind = services.config().editor
    event = editor.code_input(widget, st.session_state[f"initial:{key}"], kind=kind, lines=lines)
    if event is not None:
        services.store().save_draft(session.profile(), key, event.code)
    return event


def replace(key: str, code: str) -> None:
    """Open the editor for key on code from now on (it becomes the draft); use as a callback."""
    services.store().save_draft(session.profile(), key, code)
    st.session_state.pop(f"initial:{key}", None)
    st.session_state[f"version:{key}"] = st.session_state.get(f"version:{key}", 0) + 1


def submission(key: str, event: editor.EditorEvent | None) -> str | None:
    """Return the code waiting to be graded: this event's, or one left by an interrupted run."""
    if event is not None and event.submitted and admitted():
        st.session_state[f"pending:{key}"] = event.code
    return st.session_state.get(f"pending:{key}")


def admitted() -> bool:
    """Return whether the profile may submit now; if not, say how long to wait."""
    wait = limiter().wait((services.config().database_url, session.profile().id))
    if wait:
        st.warning(ratelimit.too_fast(wait), icon=":material/hourglass_top:")
    return not wait


@st.cache_resource(show_spinner=False)
def limiter() -> ratelimit.RateLimiter:
    """Return the one rate limiter shared by every session of this server."""
    return ratelimit.RateLimiter()


def record(
    key: str, code: str, solved: bool, summary: str, elapsed: float, busy: bool = False
) -> None:
    """Record a graded submission with the time spent on it, and clear it from the queue.

    A submission the grader was too busy to take is not an attempt; it is only cleared.
    """
    if not busy:
        attempt = Attempt(
            key, code, solved, summary, elapsed, visits.time_spent(key), session.dataset_source()
        )
        services.store().record_attempt(session.profile(), attempt)
    st.session_state.pop(f"pending:{key}", None)
