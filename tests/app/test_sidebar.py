"""The sidebar: pick the learner profile; the choice is remembered for the next session."""

from __future__ import annotations

from app import services

from .app_helpers import main_test


def test_the_first_visit_creates_a_profile(fake):
    at = main_test().run()
    assert at.selectbox(key="sidebar:profile").options == ["learner"]


def test_picking_a_profile_switches_and_is_remembered(fake):
    main_test().run()
    store = services.store()
    store.add_profile("grace")
    at = main_test().run()
    at.selectbox(key="sidebar:profile").select("grace").run()
    assert not at.exception
    assert store.last_profile().name == "grace"
    assert main_test().run().selectbox(key="sidebar:profile").value == "grace"
