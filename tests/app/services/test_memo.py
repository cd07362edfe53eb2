"""The services' process-wide memo (app/services/memo.py): one value per key, built once."""

from __future__ import annotations

import threading
import time

import pytest

from app.services import memo


def _counted(max_entries: int | None = None):
    """Return a memoised function of (a, b, *, _extra) and the list of its real calls."""
    calls = []

    @memo.shared(max_entries=max_entries)
    def build(a, b=0, *, _extra=None):
        calls.append((a, b))
        return object()

    return build, calls


def test_the_same_arguments_find_the_same_value_and_new_ones_build_another():
    build, calls = _counted()
    first = build("root", "signature-1")
    assert build("root", "signature-1") is first
    assert build("root", "signature-2") is not first, "an edited file's signature: a new value"
    assert calls == [("root", "signature-1"), ("root", "signature-2")]


def test_an_underscore_keyword_is_not_part_of_the_key_and_others_are():
    build, calls = _counted()
    first = build("fingerprint", _extra="a dataset")
    assert build("fingerprint", _extra="another") is first
    assert build("fingerprint", b=1) is not build("fingerprint", b=2)
    assert len(calls) == 3


def test_the_least_recently_used_value_goes_past_max_entries():
    build, calls = _counted(max_entries=2)
    old, kept = build(1), build(2)
    assert build(1) is old  # 1 used again: 2 is now the oldest
    build(3)
    assert build(1) is old and build(3) is not None
    assert build(2) is not kept, "dropped, built again"
    assert calls == [(1, 0), (2, 0), (3, 0), (2, 0)]


def test_callers_at_once_wait_for_one_build():
    calls = []

    @memo.shared()
    def slow(key):
        calls.append(key)
        time.sleep(0.2)
        return object()

    found = []
    threads = [threading.Thread(target=lambda: found.append(slow("k"))) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["k"] and len({id(f) for f in found}) == 1


def test_a_failed_build_is_not_kept_and_clear_forgets():
    attempts = []

    @memo.shared()
    def flaky(key):
        attempts.append(key)
        if len(attempts) == 1:
            raise OSError("the database is down")
        return object()

    with pytest.raises(OSError):
        flaky("url")
    value = flaky("url")
    assert flaky("url") is value and len(attempts) == 2
    flaky.clear()
    assert flaky("url") is not value


def test_keys_that_fail_leave_nothing_behind():
    @memo.shared()
    def broken(key):
        raise OSError(f"{key} is damaged")

    for number in range(50):  # a learner's damaged uploads, each a new key
        with pytest.raises(OSError):
            broken(f"upload:{number}")
    assert broken.pending() == 0


def test_every_memo_of_a_version_of_the_exercise_files_keeps_a_few_versions():
    # An instructor who edits the exercise files all day makes a new version at each save: the
    # memos keyed by the files' signature keep the last few, not every one since the start.
    import inspect

    from app import services

    keyed = {
        name: fn
        for name, fn in vars(services).items()
        if hasattr(fn, "pending") and "signature" in inspect.signature(fn).parameters
    }
    assert {"_proofs", "_declared", "_runs", "_grader"} <= set(keyed)
    unbounded = [name for name, fn in keyed.items() if fn.max_entries is None]
    assert not unbounded, f"kept for every version of the files: {unbounded}"
