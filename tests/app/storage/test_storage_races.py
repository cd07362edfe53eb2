"""Concurrent writers and a database restart mid-class, on the real engines: every attempt is
recorded once, and a database out of reach raises StorageUnavailable, then works again."""

from __future__ import annotations

import threading

import pytest

from app.storage import Attempt, StorageUnavailable, open_store

THREADS = 20


def _attempt(code: str) -> Attempt:
    return Attempt("dprobs", code, False, "`dprobs` is inaccurate.", 0.02, 5.0, "default")


def _submit(store, profile, ticket: str, start: threading.Barrier, errors: list) -> None:
    """Submit one ticket as a page does (record, then replace by its attempt), after start."""
    try:
        start.wait()
        if store.submissions.begin_submission(profile, "dprobs", ticket, ticket, ticket, "s1"):
            store.submissions.finish_submission(profile, ticket, _attempt(ticket))
    except Exception as err:  # noqa: BLE001 (reported by the test, with its thread's ticket)
        errors.append((ticket, err))


def _race(store, jobs: list) -> list:
    """Run one thread per (profile, ticket), all released at once; return their errors."""
    start, errors = threading.Barrier(len(jobs)), []
    threads = [
        threading.Thread(target=_submit, args=(store, profile, ticket, start, errors))
        for profile, ticket in jobs
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_twenty_threads_submitting_at_once_record_every_attempt_once(store_url):
    store = open_store(store_url)
    people = [
        store.learners.add_profile(f"learner {i}", owner=f"id {i % 4}") for i in range(THREADS)
    ]
    errors = _race(store, [(p, f"page:{p.id}") for p in people])
    assert errors == []
    for person in people:
        assert [a.code for a in store.work.attempts(person)] == [f"page:{person.id}"]
        assert store.submissions.pending(person, "dprobs") == []


def test_the_same_ticket_sent_by_twenty_tabs_at_once_is_recorded_once(store_url):
    store = open_store(store_url)
    me = store.learners.add_profile("ada")
    errors = _race(store, [(me, "page:1")] * THREADS)
    assert errors == []
    assert [a.code for a in store.work.attempts(me)] == ["page:1"]
    assert store.submissions.pending(me, "dprobs") == []


def test_a_database_restart_between_calls_costs_nothing(postgres):
    url = postgres.new_database()
    from app.storage.__main__ import main

    assert main(["--url", url, "upgrade"]) == 0
    store = open_store(url)
    me = store.learners.add_profile("ada")
    store.submissions.begin_submission(me, "dprobs", "p:1", "dprobs = 1", "dprobs = 1", "s1")
    postgres.restart()  # every pooled connection is now dead
    store.submissions.finish_submission(me, "p:1", _attempt("dprobs = 1"))
    assert [a.code for a in store.work.attempts(me)] == ["dprobs = 1"]


def test_a_database_down_raises_storage_unavailable_and_loses_no_attempt(postgres):
    url = postgres.new_database()
    from app.storage.__main__ import main

    assert main(["--url", url, "upgrade"]) == 0
    store = open_store(url)
    me = store.learners.add_profile("ada")
    store.submissions.begin_submission(me, "dprobs", "p:1", "dprobs = 1", "dprobs = 1", "s1")
    postgres.stop()
    try:
        with pytest.raises(StorageUnavailable, match="did not answer") as down:
            store.submissions.finish_submission(me, "p:1", _attempt("dprobs = 1"))
        assert "Traceback" not in str(down.value)
        with pytest.raises(StorageUnavailable):
            store.work.attempts(me)
    finally:
        postgres.start_again()
    assert [p.ticket for p in store.submissions.pending(me, "dprobs")] == ["p:1"], (
        "kept while it was down"
    )
    store.submissions.finish_submission(
        me, "p:1", _attempt("dprobs = 1")
    )  # the learner tries again
    assert [a.code for a in store.work.attempts(me)] == ["dprobs = 1"]
    assert store.submissions.pending(me, "dprobs") == []
