"""What a page run reads about the learner (app/session.py): each thing once per run, a new
browser's profile in one transaction, nothing for a profile made in this run, and a write that
still shows at once, in the run that made it and in the next."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from streamlit.testing.v1 import AppTest

from app import services
from app.storage import Attempt

from .app_helpers import BROWSER, SHAPE, SOLVED, TIMEOUT, main_test, page_test, submit, texts


class Reads:
    """The SQL statements and transactions seen while counting, from every thread."""

    def __init__(self):
        self.statements: list[str] = []
        self.transactions = 0

    def on(self, table: str) -> int:
        """Return how many statements were on table ("progress" for the statuses' query)."""
        return self.tables()[table]

    def tables(self) -> Counter:
        """Return the statements per table they read or write."""
        return Counter(_table(s) for s in self.statements)


def _table(sql: str) -> str:
    """Return the table a statement reads or writes (the first after FROM, INTO or UPDATE
    outside brackets), or "progress" for the statuses' query (work.py PROGRESS_QUERY)."""
    words = sql.replace("(", " ( ").replace(")", " ) ").split()
    if words[0] == "WITH":
        return "progress"
    depth = 0
    for word, following in zip(words, words[1:], strict=False):
        depth += {"(": 1, ")": -1}.get(word, 0)
        if depth == 0 and word in ("FROM", "INTO", "UPDATE"):
            return following
    return "?"


@contextmanager
def counting() -> Iterator[Reads]:
    """Count the SQL statements and transactions of every engine while the block runs."""
    reads = Reads()

    def statement(_conn, _cursor, sql, _params, _context, _many):
        reads.statements.append(" ".join(sql.split()))

    def begin(_conn):
        reads.transactions += 1

    event.listen(Engine, "before_cursor_execute", statement)
    event.listen(Engine, "begin", begin)
    try:
        yield reads
    finally:
        event.remove(Engine, "before_cursor_execute", statement)
        event.remove(Engine, "begin", begin)


@pytest.fixture
def opened(fake):
    """Open the store before counting (its schema is not a page's read)."""
    services.store()
    return fake


def test_a_new_browser_opens_an_exercise_with_one_transaction_for_its_profile(opened):
    """It found or made its profile in five transactions, and read the statuses, the dataset,
    the attempts (twice) and the hint and reveal counts of a profile it had just made."""
    with counting() as first:
        at = page_test("dlogprobs").run()
    assert not at.exception and "after one attempt of your own" in texts(at)
    assert first.transactions == 3, first.statements  # the profile; the draft; the pending
    assert first.tables() == {"profiles": 4, "drafts": 1, "submissions": 1}


def test_an_exercise_page_reads_each_thing_once_per_run(opened):
    """The attempts and the events were read twice a run, the profiles three times."""
    main_test().run()  # this browser's profile exists: what follows reads it
    with counting() as reads:
        at = page_test("dlogprobs").run()
    assert not at.exception
    assert reads.on("attempts") == 1 and reads.on("events") == 1, reads.statements
    assert reads.on("settings") == 1 and reads.on("progress") == 1
    with counting() as whole:
        main_test().run()
    assert whole.on("profiles") == 1, "the sidebar's list, once"


def test_the_profiles_are_read_again_by_the_next_run(opened):
    """Another page of this browser made a profile: the sidebar lists it at the next run."""
    at = main_test().run()
    services.store().learners.add_profile("grace", BROWSER)
    at.run()
    assert at.selectbox(key="sidebar:profile").options == ["learner", "grace"]


def _one_run(write: str) -> None:
    """A run on a new browser's profile that reads, writes, and reads back (session state
    "seen": what the reads returned before and after)."""
    import streamlit as st

    from app import services, session
    from app.storage import Attempt

    store, me = services.store(), session.profile()
    reads = {
        "attempt": lambda: (session.statuses(), len(session.attempts("dh"))),
        "event": lambda: session.events("dh"),
        "dataset": session.dataset_source,
        "profile": lambda: [p.name for p in session.profiles()],
    }[write]
    before = reads()
    if write == "attempt":
        store.work.record_attempt(me, Attempt("dh", "dh = 1", False, "no", 0.1, 5, "default"))
        session.forget_statuses()  # as workbench.record does
    elif write == "event":
        session.record_event("dh", "hint")
    elif write == "dataset":
        session.use_dataset("names")
    else:
        session.new_profile("grace")
    st.session_state["seen"] = (before, reads())


@pytest.mark.parametrize(
    ("write", "before", "after"),
    [
        ("attempt", ({}, 0), ({"dh": "attempted"}, 1)),
        ("event", {}, {"hint": 1}),
        ("dataset", "default", "names"),
        ("profile", ["learner"], ["learner", "grace"]),
    ],
)
def test_a_write_shows_at_once_in_the_run_that_made_the_profile(opened, write, before, after):
    at = AppTest.from_function(_one_run, args=(write,), default_timeout=TIMEOUT).run()
    assert not at.exception
    assert at.session_state["seen"] == (before, after)


def test_a_write_by_another_page_shows_at_the_next_run(opened):
    """Nothing kept for one run is seen by the next: another tab's attempt and hint count."""
    at = page_test("dlogprobs").run()
    store = services.store()
    me = store.learners.profiles()[0]
    store.work.record_attempt(me, Attempt("dlogprobs", "x = 1", False, "no", 0.1, 5, "default"))
    store.work.record_event(me, "dlogprobs", "hint")
    at.run()
    assert "Your last attempt (1 so far)" in texts(at)
    assert len(at.info) == 1 and at.info[0].value.startswith("**Hint 1.**")


def _recorded_run(earlier: tuple[bool, ...], solved: bool) -> None:
    """A run that reads the statuses, records an attempt at "dh" (after earlier ones, solved
    or not) as workbench.record does, and reads them again (session state "seen": the run's
    statuses after, and the database's)."""
    import streamlit as st

    from app import services, session
    from app.storage import Attempt

    store, me = services.store(), session.profile()
    for passed in earlier:
        store.work.record_attempt(me, Attempt("dh", "dh = 0", passed, "", 0.1, 5, "default"))
    session.forget_statuses()  # another tab's attempts, before this run read the statuses
    session.statuses()
    store.work.record_attempt(me, Attempt("dh", "dh = 1", solved, "", 0.1, 5, "default"))
    session.recorded("dh", solved)
    st.session_state["seen"] = (session.statuses(), store.work.statuses(me))


@pytest.mark.parametrize(
    ("earlier", "solved", "status"),
    [
        ((), True, "solved"),
        ((), False, "attempted"),
        ((False,), True, "solved"),
        ((True,), False, "solved"),
        ((False, False), False, "attempted"),
    ],
)
def test_an_attempt_recorded_in_a_run_gives_the_status_the_database_has(
    opened, earlier, solved, status
):
    """The statuses are brought up to date in the run instead of read again: they must be the
    database's."""
    at = AppTest.from_function(_recorded_run, args=(earlier, solved), default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    mine, database = at.session_state["seen"]
    assert mine == database == {"dh": status}


@pytest.mark.parametrize(
    ("answers", "badge"), [((SHAPE,), "Attempted, not solved yet"), ((SOLVED, SHAPE), "Solved")]
)
def test_a_submission_reads_the_statuses_once_and_shows_its_status(opened, answers, badge):
    """A submission's run read the statuses again after recording the attempt."""
    at = page_test("dlogprobs").run()
    for answer in answers:
        with counting() as reads:
            at = submit(at, f"{answer}\n")
        assert not at.exception
        assert reads.on("progress") == 1, reads.statements
    assert badge in texts(at)
    at = page_test("dlogprobs").run()  # a new run reads them: the same status
    assert badge in texts(at)
