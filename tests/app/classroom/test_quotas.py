"""What one learner may ask of the class's servers (app/classroom/quotas.py): the counts read
from the database on SQLite and PostgreSQL, and each refusal saying which limit and when it
frees."""

from __future__ import annotations

import time

import pytest

from app.classroom import quotas
from app.storage import NOTEBOOK, PASS_STEP, REGRADE, Attempt, open_store


@pytest.fixture
def store(store_url):
    return open_store(store_url)


def test_submissions_are_counted_graded_or_pending_in_the_window(store):
    me = store.learners.add_profile("ada", owner="x ada")
    other = store.learners.add_profile("bob", owner="x bob")
    now = time.time()
    for at in (now - 120, now - 50, now - 10):
        store.work.record_attempt(me, Attempt("dh", "c", False, "s", 0.0, 1.0, "default", at))
    store.work.record_attempt(other, Attempt("dh", "c", False, "s", 0.0, 1.0, "default", now))
    for origin in (NOTEBOOK, PASS_STEP, REGRADE):  # recorded for them, not submitted by them
        recorded = Attempt("db1", "c", True, "s", 0.0, 1.0, "default", now - 5, origin=origin)
        store.work.record_attempt(me, recorded)
    assert store.submissions.begin_submission(me, "dh", "t1", "c", "c", "server")
    count, oldest = quotas.Quotas(store).attempts_since(me.id, now - 60)
    assert count == 3 and oldest == pytest.approx(now - 50)


def test_a_refusal_names_its_limit_and_when_it_frees():
    now = 1_800_000_000.0
    refusal = quotas.attempts_refusal(30, now - 48, 30, now)
    assert refusal.message().endswith("; submit again in 12 s.")
    assert "30 times in the last minute" in refusal.message()
    assert quotas.attempts_refusal(29, now - 48, 30, now) is None
    lists = quotas.windowed(quotas.WORD_LISTS, 10, now - 3600, 10, now)
    assert lists.frees_at == now - 3600 + quotas.DAY and "uploaded at 07:00 UTC" in lists.message()
    runs = quotas.runs_refusal(1, 1)
    assert "1 training run(s) queued or running" in runs.message() and "ends" in runs.message()
    assert quotas.runs_refusal(0, 1) is None
    draft = quotas.draft_refusal("x" * (65 * 1024), 64)
    assert draft.message().startswith("Your code is 65 KiB, longer than the 64 KiB")
    assert quotas.draft_refusal("x" * (64 * 1024), 64) is None


def test_uploads_and_limits_met_are_recorded_per_learner(store):
    me = store.learners.add_profile("ada", owner="x ada")
    kept = quotas.Quotas(store)
    kept.note_upload(me.id, "aaaa"), kept.note_upload(me.id, "aaaa"), kept.note_upload(me.id, "b")
    assert kept.uploads_since(me.id, time.time() - quotas.DAY)[0] == 2, "a list counts once"
    kept.hit(me.id, quotas.ATTEMPTS), kept.hit(me.id, quotas.ATTEMPTS), kept.hit(me.id, "runs")
    hits = {(h.profile_id, h.limit): h.count for h in kept.hits()}
    assert hits == {(me.id, quotas.ATTEMPTS): 2, (me.id, quotas.RUNS): 1}
