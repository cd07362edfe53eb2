"""The audit log, a part of the store (app/storage/auditlog.py), on both engines: entries
recorded with who, when and what, read back newest first per course, a learner's found for
their export, and kept when the learner is deleted."""

from __future__ import annotations

import time

import pytest

from app.classroom import ClassView
from app.storage import auditlog, open_store

IVY = auditlog.Actor("https://id.uni.edu 7", "Ivy Instructor")
ADA, BOB = "https://id.uni.edu 42", "https://id.uni.edu 43"


def test_entries_say_who_when_what_and_whose_newest_first_per_course(store_url):
    store, other = open_store(store_url), open_store(store_url, course="other")
    ClassView(store).note_person(ADA, "Ada Lovelace", "ada@uni.edu", (), "learner")
    before = time.time()
    store.audit.record(IVY, auditlog.VIEW, ADA, {"profiles": [3]})
    store.audit.record(IVY, auditlog.GRADEBOOK, auditlog.CLASS, {"file": "gradebook.csv"})
    other.audit.record(IVY, auditlog.GRADEBOOK)
    gradebook, view = store.audit.entries()
    assert (view.action, view.subject, view.subject_name) == ("view", ADA, "Ada Lovelace")
    assert (view.actor, view.actor_name, view.detail) == (IVY.identity, IVY.name, {"profiles": [3]})
    assert before <= view.created_at <= gradebook.created_at <= time.time()
    assert (gradebook.subject, gradebook.subject_name) == ("", "")
    assert gradebook.detail == {"file": "gradebook.csv"} and gradebook.course_id == "default"
    assert [e.detail for e in other.audit.entries()] == [{}]


def test_several_learners_are_recorded_at_once_and_an_unknown_action_is_refused(store_url):
    store = open_store(store_url)
    store.audit.record_many(IVY, auditlog.REGRADE, {ADA: {"attempts": 2}, BOB: {"attempts": 1}})
    assert {e.subject: e.detail["attempts"] for e in store.audit.entries()} == {ADA: 2, BOB: 1}
    with pytest.raises(ValueError, match="no audit action 'peek'"):
        store.audit.record(IVY, "peek", ADA)
    assert len(store.audit.entries()) == 2


def test_a_learners_export_carries_their_entries_and_the_class_wide_ones(store_url):
    store = open_store(store_url)
    ada, bob = store.learners.add_profile("ada", ADA), store.learners.add_profile("bob", BOB)
    store.audit.record(IVY, auditlog.VIEW, ADA)
    store.audit.record(IVY, auditlog.VIEW, BOB)
    store.audit.record(IVY, auditlog.GRADEBOOK)
    (exported,) = store.privacy.export_profiles([ada])["profiles"]
    assert [(e["action"], e["subject"]) for e in exported["audit"]] == [
        ("view", ADA), ("gradebook", ""),
    ]  # fmt: skip
    store.privacy.delete_profiles([ada])
    assert [e.subject for e in store.audit.entries()] == ["", BOB, ADA]  # kept: who did what
    (exported,) = store.privacy.export_profiles([bob])["profiles"]
    assert ADA not in str(exported)


def test_a_command_names_its_user_and_host():
    who = auditlog.command_line()
    user, host = who.identity.split("@")
    assert user and host and who.name == f"{user} on {host} (command line)"
