"""The sidebar: this browser's profiles only; the choice is remembered for its next session."""

from __future__ import annotations

from app import services
from app.config import identity

from ..app_helpers import BROWSER, main_test


def _cookie_scripts(at) -> list[str]:
    """Return the cookie-setting scripts on the page."""
    return [e.proto.body for e in at.get("html") if identity.COOKIE in e.proto.body]


def test_the_first_visit_creates_a_profile(fake):
    at = main_test().run()
    assert at.selectbox(key="sidebar:profile").options == ["learner"]


def test_picking_a_profile_switches_and_is_remembered(fake):
    main_test().run()
    store = services.store()
    store.learners.add_profile("grace", BROWSER)
    at = main_test().run()
    at.selectbox(key="sidebar:profile").select("grace").run()
    assert not at.exception
    assert store.learners.last_profile(BROWSER).name == "grace"
    assert main_test().run().selectbox(key="sidebar:profile").value == "grace"


def test_another_browser_lists_only_its_own_profiles_and_never_switches_ours(fake, browser):
    store = services.store()
    main_test().run()
    store.learners.use_profile(store.learners.add_profile("grace", BROWSER))
    ours = browser["cookie"]
    browser["cookie"] = identity.sign("e5f6a7b8", services.identity_secret())
    theirs = main_test().run()
    assert theirs.selectbox(key="sidebar:profile").options == ["learner"]
    theirs.text_input(key="sidebar:new_profile").input("hopper")
    theirs.button[-1].click().run()
    assert theirs.selectbox(key="sidebar:profile").value == "hopper"
    browser["cookie"] = ours
    again = main_test().run()
    assert again.selectbox(key="sidebar:profile").options == ["learner", "grace"]
    assert again.selectbox(key="sidebar:profile").value == "grace"


def test_a_tampered_cookie_is_refused_and_a_new_identity_is_saved(fake, browser):
    store = services.store()
    main_test().run()
    store.learners.use_profile(store.learners.add_profile("grace", BROWSER))
    signature = browser["cookie"].rpartition(".")[2]
    forged = "0" * len(signature) if signature[0] != "0" else "1" * len(signature)
    browser["cookie"] = f"{BROWSER}.{forged}"
    at = main_test().run()
    assert at.selectbox(key="sidebar:profile").options == ["learner"], "not grace's browser"
    new = at.session_state[identity.SESSION_KEY]
    assert new != BROWSER
    [script] = _cookie_scripts(at)
    assert identity.sign(new, services.identity_secret()) in script


def test_a_browser_with_a_valid_cookie_is_not_sent_a_new_one(fake, browser):
    assert not _cookie_scripts(main_test().run())
    browser["cookie"] = None
    at = main_test().run()
    assert len(_cookie_scripts(at)) == 1 and at.session_state[identity.SESSION_KEY] != BROWSER


def test_a_blank_profile_name_is_refused_with_the_reason(fake):
    at = main_test().run()
    at.text_input(key="sidebar:new_profile").input("   ")
    next(b for b in at.get("form_submit_button") if b.label == "Create").click()
    at.run()
    assert "A profile name needs 1 to 40 characters: got 0." in at.error[0].value
    assert at.selectbox(key="sidebar:profile").options == ["learner"]
