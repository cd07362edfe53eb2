"""The editor's life on a page: open on the saved draft, keep drafts, hand over submissions.

Used by every page with an editor (an exercise, the whole pass), keyed by what the attempts are
recorded under. A submission is recorded in the store (with the draft) before it is graded and
queued in the session, so that a rerun which interrupts the grading run (a late editor event)
grades it instead of losing it, and a server that stops in between leaves it visible: the page
then says it was not graded, with its code kept.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from app import services, session
from app.classroom import quotas
from app.classroom.lti import later
from app.panels import editor, ratelimit, visits
from app.services import metrics
from app.storage import Attempt, Facts

SERVER = uuid.uuid4().hex  # this server process; a submission left by another was cut off
GRACE = 60.0  # seconds: a submission pending longer than this in this process was cut off too


@dataclass(frozen=True)
class Submission:
    """Code on its way to the grader, under its ticket."""

    ticket: str
    code: str


def editor_event(
    key: str, starter: str, lines: int = 8, drafts: bool = False
) -> editor.EditorEvent | None:
    """Show the editor for key, opened on the saved draft (else starter); save each change.

    drafts: the editor's callback keeps each change and reruns only the notices above the
    editor (a fragment of their own, `_notices`) instead of the fragment that holds the
    editor, which a submission still reruns. For one editor a run: its fragment's key is fixed.
    The fragment that holds the editor calls `drawn(key)` at its end; until it has, and for
    SETTLED seconds after, a change reruns that fragment too (see `_draft_alone`).
    """
    if visits.arrived(key):  # a fresh editor on each visit, so it shows the latest draft
        st.session_state.pop(f"initial:{key}", None)
        st.session_state[f"version:{key}"] = st.session_state.get(f"version:{key}", 0) + 1
    if f"initial:{key}" not in st.session_state:
        draft = services.store().work.draft(session.profile(), key)
        st.session_state[f"initial:{key}"] = starter if draft is None else draft
    # Above the editor, filled once the editor's event is known: a container from the start,
    # never an element that the run turns into one. When a run starts, Streamlit drops the
    # deltas that the fragments it reruns have not sent yet, but keeps those of the notices'
    # own fragment, nested in this one; had the place been sent as an element (st.empty) and
    # its container been dropped, the notices' block would land inside that element, and the
    # browser's page went white ("'setIn' cannot be called on an ElementNode", issue 39).
    notice = st.container()
    widget = f"editor:{key}:{st.session_state.get(f'version:{key}', 0)}"
    kind = services.config().editor
    on_event = (lambda: _draft_alone(key, widget)) if drafts else None
    event = editor.code_input(
        widget, st.session_state[f"initial:{key}"], kind=kind, lines=lines, on_event=on_event
    )
    if not drafts:
        with notice:
            _notice(key, event)
        return event
    st.session_state.pop(f"{DRAWN}:{key}", None)  # this run has not ended: see `drawn`
    if event is not None and event.submitted is None:
        _kept(key, _keep(key, event.code))
    elif event is not None:  # a new submission takes the old one's place
        st.session_state[f"{NOTICE}:{key}"] = (None, False)
    with notice:
        _notices(key)
    return event


NOTICE = "editor:notice"  # session key: what the notices above an editor say (see `_kept`)
NOTICES = "editor-notices"  # the key of their fragment, which an auto-save reruns alone
DRAWN = "editor:drawn"  # session key: when the editor's fragment last ended a run, if it has
# Seconds after the end of a run of the editor's fragment during which a change still reruns
# it. Streamlit sends a run's elements to the browser a moment after they are drawn, and a new
# run of a fragment drops the elements of the fragment not sent yet: a change that arrives
# while a submission is graded (the editor's debounced auto-save) starts a run of the editor's
# fragment as the grading run ends, which would drop the verdict before the browser saw it.
SETTLED = 0.5


def drawn(key: str) -> None:
    """Say that the fragment holding key's editor (drafts=True) ran to its end."""
    st.session_state[f"{DRAWN}:{key}"] = time.monotonic()


def settled(key: str) -> bool:
    """Return whether the last run of key's editor's fragment ended, SETTLED seconds ago: its
    elements have reached the browser, and a run of the notices alone cannot drop them."""
    ended = st.session_state.get(f"{DRAWN}:{key}")
    return ended is not None and time.monotonic() - ended >= SETTLED


def _notice(key: str, event: editor.EditorEvent | None) -> None:
    """Keep a change as the draft, and say which submissions a stopped server never graded."""
    if event is not None and event.submitted is None:
        keep_draft(key, event.code)
    if event is None or event.submitted is None:  # a new submission takes the old one's place
        _not_graded(key)


def _draft_alone(key: str, widget: str) -> None:
    """The editor's callback: keep a mere change as the draft and rerun only the notices; a
    submission (or one still queued) reruns the editor's fragment, which grades it, and so
    does a change while that fragment's last run may not have reached the browser (`settled`).
    """
    if editor.submits(widget) or st.session_state.get(f"pending:{key}") or not one_fragment():
        return
    if not settled(key):
        return
    code = editor.changed(widget)
    if code is not None:
        _kept(key, _keep(key, code))
    st.rerun(scope=NOTICES)


def one_fragment() -> bool:
    """Return whether this interaction reruns one fragment (the editor's, whose event it is).

    Else it runs the page (its first run, a link or another widget folded into the same
    request, or AppTest, which runs the whole script for every event): that run takes the
    change, and a rerun of the notices alone must not take its place."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx is not None and len(ctx.fragment_ids_this_run or ()) == 1


def _kept(key: str, refusal: quotas.Refusal | None) -> None:
    """Remember what the notices say after a change: its refusal, if any, and the stopped
    server's submissions, read now (the callback's run has the store at hand; the run of the
    notices that follows an auto-save then need not look it up again)."""
    st.session_state[f"{NOTICE}:{key}"] = (refusal, _left_behind(key))


@st.fragment(key=NOTICES)
def _notices(key: str) -> None:
    """Show what the notices above the editor say (`_kept`); rerun alone by an auto-save.

    The stopped server's submissions read by `_kept` are shown once, by the run that follows
    it; any later run reads them again."""
    refusal, left = st.session_state.get(f"{NOTICE}:{key}", (None, True))
    if refusal is not None:
        st.warning(refusal.message(), icon=":material/block:")
    if isinstance(left, tuple):
        st.session_state[f"{NOTICE}:{key}"] = (refusal, True)
        _say_not_graded(left)
    elif left:
        _not_graded(key)


def keep_draft(key: str, code: str) -> bool:
    """Keep code as key's draft unless it is longer than one learner may keep (say so)."""
    refusal = _keep(key, code)
    if refusal is not None:
        st.warning(refusal.message(), icon=":material/block:")
    return refusal is None


def _keep(key: str, code: str) -> quotas.Refusal | None:
    """Keep code as key's draft unless it is too long; return that refusal (recorded for the
    dashboard), else None."""
    refusal = quotas.draft_refusal(code, services.config().quota_draft_kib)
    if refusal is None:
        services.store().work.save_draft(session.profile(), key, code)
    else:
        quotas.Quotas(services.store()).hit(session.profile().id, refusal.limit)
    return refusal


def refuse(refusal: quotas.Refusal) -> None:
    """Say which limit refused the learner, and when it frees; record it for the dashboard."""
    st.warning(refusal.message(), icon=":material/block:")
    quotas.Quotas(services.store()).hit(session.profile().id, refusal.limit)


def _not_graded(key: str) -> None:
    """Say which submissions a stopped server never graded; their code is kept."""
    _say_not_graded(_left_behind(key))


def _left_behind(key: str) -> tuple:
    """Return the submissions of key (the store's Pending rows) that a stopped server never
    graded: not this session's queue, nor one this server took less than GRACE seconds ago."""
    queued = {s.ticket for s in st.session_state.get(f"pending:{key}", [])}
    now = time.time()
    return tuple(
        left
        for left in services.store().submissions.pending(session.profile(), key)
        if not (left.ticket in queued or (left.server == SERVER and now - left.created_at < GRACE))
    )


def _say_not_graded(lefts: tuple) -> None:
    """Say that each of these submissions was not graded, with its code."""
    for left in lefts:
        when = time.strftime("%H:%M", time.localtime(left.created_at))
        st.warning(
            f"Your submission of {when} was not graded: the app stopped before it finished. "
            "It is not counted as an attempt; press Submit again.",
            icon=":material/report:",
        )
        with st.expander("The code you submitted then"):
            st.code(left.code, language="python")


def replace(key: str, code: str) -> None:
    """Open the editor for key on code from now on (it becomes the draft); use as a callback."""
    services.store().work.save_draft(session.profile(), key, code)
    st.session_state.pop(f"initial:{key}", None)
    st.session_state[f"version:{key}"] = st.session_state.get(f"version:{key}", 0) + 1


def submission(key: str, event: editor.EditorEvent | None) -> str | None:
    """Return the code to grade next: this event's, or one left by an interrupted run."""
    if event is not None and event.submitted is not None:
        _take(key, event)
    queue = st.session_state.get(f"pending:{key}")
    return queue[0].code if queue else None


def _take(key: str, event: editor.EditorEvent) -> None:
    """Record a submission and the draft before grading, and queue it; or say to wait."""
    store, profile = services.store(), session.profile()
    if not admitted(event.submitted):
        if quotas.draft_refusal(event.code, services.config().quota_draft_kib) is None:
            store.work.save_draft(profile, key, event.code)  # kept, as typed, not graded
        editor.taken(event)
        return
    if store.submissions.begin_submission(
        profile, key, event.ticket, event.submitted, event.code, SERVER
    ):
        queue = st.session_state.setdefault(f"pending:{key}", [])
        queue.append(Submission(event.ticket, event.submitted))
    editor.taken(event)
    if services.config().grade_delay:  # tests only: time to stop the server here
        time.sleep(services.config().grade_delay)


def admitted(code: str) -> bool:
    """Return whether the profile may submit this code now: not too fast for this server (a
    burst, then about one a second), not over the learner's submissions a minute on every
    replica, not too long; if not, say which limit and when it frees."""
    wait = limiter().wait((services.config().database_url, session.profile().id))
    if wait:
        st.warning(ratelimit.too_fast(wait), icon=":material/hourglass_top:")
        return False
    refusal = quotas.draft_refusal(code, services.config().quota_draft_kib) or _per_minute()
    if refusal is not None:
        refuse(refusal)
    return refusal is None


def _per_minute() -> quotas.Refusal | None:
    """Return the refusal of one more submission in the classroom (the learner's last minute,
    on every replica, `NINJA_QUOTA_ATTEMPTS`), else None."""
    if not services.config().classroom:
        return None
    now, store = time.time(), services.store()
    counted = quotas.Quotas(store).attempts_since(session.profile().id, now - quotas.MINUTE)
    return quotas.attempts_refusal(*counted, services.config().quota_attempts, now)


@st.cache_resource(show_spinner=False)
def limiter() -> ratelimit.RateLimiter:
    """Return the one rate limiter shared by every session of this server."""
    return ratelimit.RateLimiter()


def record(
    key: str,
    code: str,
    solved: bool,
    summary: str,
    elapsed: float,
    busy: bool = False,
    facts: Facts | None = None,
) -> None:
    """Record a graded submission with the time spent on it and its facts (the grader's
    fields, `storage.facts_of(result)`), and clear it from the queue.

    The attempt replaces the submission recorded before grading, in one transaction. A
    submission the grader was too busy to take is not an attempt; it is only cleared.
    """
    store, profile = services.store(), session.profile()
    metrics.graded(_outcome(solved, busy, facts), elapsed)
    attempt = None
    if not busy:
        spent, dataset = visits.time_spent(key), session.dataset_source()
        facts, version = facts or Facts(), services.exercise_version(key)
        attempt = Attempt(key, code, solved, summary, elapsed, spent, dataset, 0.0, facts, version)
    queue = st.session_state.get(f"pending:{key}") or []
    if queue and queue[0].code == code:  # leaves the queue once recorded (the database may be down)
        store.submissions.finish_submission(profile, queue[0].ticket, attempt)
        queue.pop(0)
    elif attempt is not None:
        store.work.record_attempt(profile, attempt)
    if attempt is None:
        session.forget_statuses()
        return
    later.after_attempts(store, profile.owner, [key])  # to their LMS, if they came from one
    session.recorded(key, solved)  # the statuses known without reading them again


def _outcome(solved: bool, busy: bool, facts: Facts | None) -> str:
    """Return a recorded verdict's outcome for the metrics: busy, else the grader's status."""
    if busy:
        return "busy"
    if facts is not None and facts.status:
        return facts.status
    return "solved" if solved else "not_solved"
