"""The suite's own turns (tests/conftest.py): which group each test goes in, which groups are
handed out first, and the image build letting the host-wide tests through the lock."""

from __future__ import annotations

import collections
import fcntl
import json
import os
import shutil
import uuid

import pytest

from .conftest import (
    AS_THE_USER,
    BESIDE_NOTHING,
    HOST_WIDE,
    ROOT,
    RUN,
    Hold,
    _groups_dir,
    put_first,
    pytest_collection_modifyitems,
    set_aside,
)


class Item:
    """A collected test as the hooks read it: its id, file, fixtures and marks."""

    def __init__(self, path: str, name: str, fixtures=(), host_wide=False):
        self.path, self.nodeid = ROOT / path, f"{path}::{name}"
        self.fixturenames, self.host_wide = list(fixtures), host_wide

    def get_closest_marker(self, name):
        return object() if name == "host_wide" and self.host_wide else None


@pytest.fixture
def groups_of(monkeypatch):
    """Return a function: the groups a worker writes for these items (in a run of its own)."""
    monkeypatch.setenv(RUN, f"turns-test-{uuid.uuid4().hex}")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw9")

    def groups_of(items):
        pytest_collection_modifyitems(None, items)
        return json.loads((_groups_dir() / "gw9.json").read_text())

    yield groups_of
    shutil.rmtree(_groups_dir(), ignore_errors=True)


def test_a_file_with_a_host_wide_test_is_one_group_with_the_others_of_its_kind(groups_of):
    items = [
        Item("tests/grader/test_a.py", "test_counts", host_wide=True),
        Item("tests/grader/test_a.py", "test_plain"),
        Item("tests/grader/test_b.py", "test_counts_too", host_wide=True),
        Item("tests/grader/test_c.py", "test_plain"),
        Item("tests/e2e/test_d.py", "test_page"),
        Item("tests/deploy/test_e.py", "test_compose", fixtures=["image"]),
        Item("tests/grader/test_f.py", "test_as_user", fixtures=["ordinary"]),
    ]
    assert list(groups_of(items).values()) == [
        HOST_WIDE,
        HOST_WIDE,
        HOST_WIDE,
        "tests/grader/test_c.py",
        BESIDE_NOTHING,
        BESIDE_NOTHING,
        AS_THE_USER,
    ]


def test_the_host_wide_files_are_handed_out_right_after_the_browser_group():
    queue = collections.OrderedDict.fromkeys(
        ["tests/a.py", AS_THE_USER, "tests/b.py", HOST_WIDE, BESIDE_NOTHING]
    )
    put_first(queue)
    assert list(queue) == [BESIDE_NOTHING, HOST_WIDE, AS_THE_USER, "tests/a.py", "tests/b.py"]


@pytest.fixture
def lock(tmp_path):
    """Return a run's lock file (and its gate beside it), and an open file of its own."""
    path = tmp_path / "turns.lock"
    for name in ("turns.lock", "turns.gate"):
        (tmp_path / name).touch()
    other = os.open(path, os.O_RDONLY)
    yield path, other
    Hold.give_back()
    os.close(other)


def test_set_aside_lets_an_exclusive_holder_in_then_holds_shared_again(lock, monkeypatch):
    monkeypatch.delenv("BPN_TESTS_HOLD_THE_MACHINE", raising=False)
    path, other = lock
    Hold.take(path, fcntl.LOCK_SH)
    with pytest.raises(BlockingIOError):
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with set_aside():
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a host-wide test gets in
        fcntl.flock(other, fcntl.LOCK_UN)
    assert (Hold.mode, Hold.path) == (fcntl.LOCK_SH, path)
    with pytest.raises(BlockingIOError):
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_set_aside_keeps_an_exclusive_hold(lock, monkeypatch):
    monkeypatch.delenv("BPN_TESTS_HOLD_THE_MACHINE", raising=False)
    path, other = lock
    Hold.take(path, fcntl.LOCK_EX)
    with set_aside(), pytest.raises(BlockingIOError):
        fcntl.flock(other, fcntl.LOCK_SH | fcntl.LOCK_NB)
    assert Hold.mode == fcntl.LOCK_EX
