"""The instructor dashboard (/instructor) in AppTests: what an instructor sees of the class, and
that nobody else sees anything of it (the real sign-in: tests/e2e/test_dashboard.py)."""

from __future__ import annotations

import json
import time

import jsonschema
import pytest
from streamlit.testing.v1 import AppTest

from app import services
from app.classroom import ClassView
from app.panels.auditlog import EMPTY
from app.screens.instructor import LEARNERS, MARKS, NOBODY, TABS
from app.storage import ATTEMPTED, SOLVED, Attempt, Facts, auditlog
from app.views.dashboard import NO_MEDIAN, REFRESH

from ..app_helpers import ROOT, TIMEOUT, page_test, texts

ISSUER = "https://id.uni.test"
ADA = {"is_logged_in": True, "iss": ISSUER, "sub": "ada-1", "name": "Ada", "email": "ada@uni.test"}
ADA |= {"iat": int(time.time()), "email_verified": True}  # as every real token has (issue 34)
IVY = {**ADA, "sub": "ivy-9", "name": "Ivy", "email": "ivy@uni.test"}


@pytest.fixture
def classroom(app_env, fake, monkeypatch):
    """Run the app in the classroom mode, Ivy an instructor."""
    monkeypatch.setenv("NINJA_MODE", "classroom")
    monkeypatch.setenv("NINJA_INSTRUCTORS", "ivy@uni.test")
    return app_env


def _attempt(exercise, solved, misconception="", code="code"):
    facts = Facts(True, "", misconception, "solved" if solved else "not_solved")
    return Attempt(exercise, code, solved, "the verdict", 0.01, 30.0, "default", facts=facts)


def _class():
    """Ada (group A) solves dlogprobs after a sign error; Bob (group B) tries dprobs."""
    store = services.store()
    for sub, name, group in (("ada-1", "Ada", "A"), ("bob-2", "Bob", "B")):
        owner = f"{ISSUER} {sub}"
        store.learners.add_profile("learner", owner=owner)
        ClassView(store).note_person(owner, name, f"{sub[:3]}@uni.test", (group,), "learner")
    ada, bob = store.learners.profiles()
    store.work.record_attempt(
        ada, _attempt("dlogprobs", False, "sign_flipped", "dlogprobs = -oops")
    )
    store.work.record_attempt(ada, _attempt("dlogprobs", True))
    store.work.record_attempt(bob, _attempt("dprobs", False, TIMES_PROBS))
    store.work.record_event(bob, "dprobs", "hint")


TIMES_PROBS = "multiplies_by_probs_where_the_log_s_derivative_divides"  # a listed mistake's id


def dashboard(user: dict | None = None) -> AppTest:
    at = page_test(page="instructor")
    if user is not None:
        at.user = user
    return at.run()


def sections(user: dict) -> dict:
    """Return the navigation that a session of user builds."""

    def script():
        import streamlit as st

        from app import nav

        st.session_state["sections"] = nav.sections()

    at = AppTest.from_function(script, default_timeout=TIMEOUT)
    at.user = user
    return at.run().session_state["sections"]


def listed(found: dict) -> dict[str, str]:
    return {p.url_path: p.visibility for group in found.values() for p in group}


def test_the_instructor_sees_the_class_grid_with_statuses_and_attempts(classroom):
    _class()
    at = dashboard(IVY)
    assert not at.exception, at.exception
    assert [t.label for t in at.tabs] == list(TABS)
    grid = at.dataframe[0].value
    assert list(grid["learner"]) == ["Ada", "Bob"]
    assert list(grid["dlogprobs"]) == [f"{MARKS[SOLVED]} 2", ""]
    assert list(grid["dprobs"]) == ["", f"{MARKS[ATTEMPTED]} 1"]
    assert list(grid["solved"]) == [1, 0]
    assert at.selectbox(key="dashboard_group").options == ["Everyone", "A", "B"]
    at.selectbox(key="dashboard_group").select("B").run()
    assert list(at.dataframe[0].value["learner"]) == ["Bob"]


def test_the_exercises_tab_counts_and_names_the_misconception_with_an_example(classroom):
    _class()
    at = dashboard(IVY)
    per_item = at.dataframe[1].value.set_index("exercise")
    assert per_item.loc["dlogprobs", "solved"] == 1
    assert per_item.loc["dlogprobs", "median attempts to solve"] == "2"
    assert per_item.loc["dlogprobs", "top misconception"] == "has the opposite sign"
    assert per_item.loc["dprobs", "attempted, not solved"] == 1
    assert per_item.loc["dprobs", "median minutes to solve"] == NO_MEDIAN, "not None"
    # a mistake the exercise lists, by its own id, in the words of its name
    words = "multiplies by probs where the log's derivative divides"
    assert per_item.loc["dprobs", "top misconception"] == words
    labels = [e.label for e in at.expander]
    assert f"dprobs: {words} (1 attempt(s), 1 learner(s))" in labels
    assert "dlogprobs = -oops" in [c.value for c in at.code]


def test_the_dashboard_says_when_it_last_refreshed(classroom):
    _class()
    captions = [c.value for c in dashboard(IVY).caption]
    assert any(c.startswith("Updated at ") and f"every {REFRESH} s" in c for c in captions)


def test_a_learners_history_shows_each_attempt_and_hints(classroom):
    _class()
    at = dashboard(IVY)
    at.selectbox(key="dashboard_learner").select(2).run()  # Bob's profile
    assert "1 attempt(s), 1 hint(s) shown" in texts(at)
    assert "the verdict" in [t.value for t in at.text]


def test_the_audit_log_tab_shows_whose_history_was_opened_and_by_whom(classroom):
    _class()
    store = services.store()
    store.audit.record(auditlog.command_line(), auditlog.EXPORT, f"{ISSUER} ada-1")
    at = dashboard(IVY)
    assert audit_tab(at).label == "Audit log"
    assert list(audit_tab(at).dataframe[-1].value["action"]) == [
        "export"
    ]  # the dashboard, opened: none
    at.selectbox(key="dashboard_learner").select(2).run()  # Bob's history opened
    at.selectbox(key="dashboard_learner").select(2).run()  # again: no new choice, no entry
    table = audit_tab(at).dataframe[-1].value
    assert list(table["action"]) == ["view", "export"]
    assert list(table["whose data"]) == ["Bob", "Ada"]
    assert table["who"][0] == "Ivy" and table["who"][1].endswith("(command line)")
    (view, _) = store.audit.entries()
    bob = store.learners.profiles(f"{ISSUER} bob-2")[0]
    assert (view.actor, view.detail) == (f"{ISSUER} ivy-9", {"profiles": [bob.id]})


def audit_tab(at):
    """Return the dashboard's Audit log tab (another may follow it)."""
    return at.tabs[TABS.index("Audit log")]


def test_an_empty_audit_log_says_so(classroom):
    at = dashboard(IVY)
    assert EMPTY in [i.value for i in at.info]


def test_an_empty_class_says_so(classroom):
    at = dashboard(IVY)
    assert not at.exception, at.exception
    assert NOBODY in [i.value for i in at.info]


def test_a_signed_in_learner_is_refused_and_sees_nothing_of_the_class(classroom):
    _class()
    at = dashboard(ADA)
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [LEARNERS]
    assert not at.dataframe and not at.tabs and not at.selectbox and "Bob" not in texts(at)


def test_a_signed_out_visitor_is_refused(classroom):
    _class()
    at = dashboard({"is_logged_in": False})
    assert [e.value for e in at.error] == [LEARNERS] and not at.dataframe


def test_a_local_learner_is_refused(app_env, fake):  # the local mode's default
    at = dashboard()
    assert [e.value for e in at.error] == [LEARNERS] and not at.dataframe


def test_only_instructors_have_the_dashboard_in_the_navigation(classroom):
    assert listed(sections(IVY))["instructor"] == "visible"
    assert listed(sections(ADA))["instructor"] == "hidden", "served, to refuse them"
    assert "instructor" not in listed(sections({"is_logged_in": False}))


def test_the_local_instructor_has_the_dashboard(app_env, fake, instructor):
    _class()
    at = dashboard()
    assert not at.exception and not at.error
    assert len(at.dataframe[0].value) == 2


def test_the_gradebook_download_validates_against_the_schema(classroom):
    _class()
    at = dashboard(IVY)
    labels = [b.label for b in at.get("download_button")]
    assert labels == [
        "Download gradebook.csv",
        "Download gradebook.wide.csv",
        "Download gradebook.json",
    ]
    # A click that reran the dashboard would drop the file the browser is fetching.
    assert [b.proto.ignore_rerun for b in at.get("download_button")] == [True] * 3
    from app.classroom import classbook
    from app.classroom.answers import Answers

    store, catalog = services.store(), services.declared()
    names = classbook.gradebook_names(ClassView(store).class_learners())
    book = json.loads(
        classbook.gradebook_files(Answers(store).class_answers(), names, catalog)["json"]
    )
    schema = json.loads((ROOT / "docs" / "gradebook.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(book)
    assert [(e["learner"], e["solved"]) for e in book["learners"]] == [
        ("ada@uni.test", 1),
        ("bob@uni.test", 0),
    ]
