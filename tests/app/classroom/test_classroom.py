"""The classroom mode in AppTests: the sign-in page alone for a visitor, and the signed-in
person's identity feeding the progress (st.user seeded by AppTest.user; the real sign-in is
tests/e2e/test_classroom.py)."""

from __future__ import annotations

import time

import pytest

from app import services
from app.classroom.signin import SIGN_OUT
from app.storage import open_store

from ..app_helpers import main_test, texts

ISSUER = "https://id.uni.test"
ADA = {"is_logged_in": True, "iss": ISSUER, "sub": "ada-1", "name": "Ada", "email": "ada@uni.test"}
ADA |= {"iat": int(time.time()), "email_verified": True}  # as every real token has (issue 34)


@pytest.fixture
def classroom(app_env, fake, monkeypatch):
    """Run the app in the classroom mode, Ivy an instructor; return the data directory."""
    monkeypatch.setenv("NINJA_MODE", "classroom")
    monkeypatch.setenv("NINJA_INSTRUCTORS", "ivy@uni.test")
    return app_env


def signed_in(user: dict | None):
    """Return the whole app's AppTest after one run, for user (None: nobody signed in)."""
    at = main_test()
    at.user = user if user is not None else {"is_logged_in": False}
    return at.run()


def owners() -> set[str]:
    return {p.owner for p in services.store().learners.profiles()}


def test_a_visitor_who_has_not_signed_in_gets_the_sign_in_page_only(classroom):
    at = signed_in(None)
    assert not at.exception, at.exception
    assert [b.label for b in at.button] == ["Sign in"]
    assert "sign in" in at.title[0].value
    assert not at.text_area and not at.selectbox and "Signed in as" not in texts(at)
    assert owners() == set(), "a visitor gets no profile"


def test_the_signed_in_persons_identity_is_issuer_and_subject(classroom):
    at = signed_in(ADA)
    assert not at.exception, at.exception
    assert at.title[0].value == "Backprop Ninja"
    assert [t.value for t in at.sidebar.text] == ["Signed in as Ada", "ada@uni.test"]
    assert SIGN_OUT in [c.value for c in at.sidebar.caption], "the provider's page is said"
    assert "Sign out" in [b.label for b in at.sidebar.button]
    assert not at.sidebar.selectbox, "no profile switcher in the classroom mode"
    assert owners() == {f"{ISSUER} ada-1"}


def test_an_instructor_is_named_as_one(classroom):
    ivy = {**ADA, "sub": "ivy-9", "name": "Ivy", "email": "Ivy@uni.test"}
    at = signed_in(ivy)
    assert at.sidebar.text[0].value == "Signed in as Ivy (instructor)"


def test_progress_from_before_identities_is_not_handed_to_a_signed_in_person(classroom):
    store = open_store(services.config().database_url)
    store.learners.add_profile("learner", owner="")
    signed_in(ADA)
    assert {p.owner for p in services.store().learners.profiles()} == {"", f"{ISSUER} ada-1"}


def test_the_local_mode_never_asks_anyone_to_sign_in(app_env, fake):
    at = main_test().run()
    assert not at.exception, at.exception
    assert "Sign in" not in [b.label for b in at.button]
    assert at.sidebar.selectbox[0].label == "Learner profile"


def test_a_token_that_names_nobody_admits_nobody(classroom):
    at = signed_in({"is_logged_in": True, "iss": ISSUER, "name": "Nobody"})
    assert not at.exception, at.exception
    assert "did not say who you are" in at.error[0].value
    assert [b.label for b in at.button] == ["Sign out"]
    assert owners() == set()
