"""In real browsers: the classroom mode, with a real OpenID Connect provider on loopback.

The provider is PyPI's oidc-provider-mock (a Flask app built on Authlib's server side) served by
werkzeug on 127.0.0.1 in this test process, once per test session; its sign-in form has a button
per learner. The app runs in the classroom mode with an [auth] section of its own
(`--secrets.files`), and signs in through Streamlit's own st.login: nothing here is mocked.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import threading
import urllib.request
import warnings

import pytest
from jwcrypto.jwk import JWK
from playwright.sync_api import expect

from app.classroom.signin import SIGN_OUT
from app.storage import open_store

from .e2e_helpers import (
    EDITOR,
    LOOP_SECONDS,
    OUTPUT,
    ROOT,
    WAIT_MS,
    editor_text,
    free_port,
    open_page,
    start_server,
    stop_server,
    type_and_submit,
)
from .test_identity import DLOGPROBS, SOLVED, UNTOUCHED, badge

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PEOPLE = {
    "ada": {"name": "Ada Lovelace", "email": "ada@uni.test", "email_verified": True},
    "bob": {"name": "Bob Babbage", "email": "bob@uni.test", "email_verified": True},
    "ivy": {"name": "Ivy Instructor", "email": "ivy@uni.test", "email_verified": True},
}
INSTRUCTORS = "ivy@uni.test"
TOOL_KEY = JWK.generate(kty="RSA", size=2048, kid="tool-1")  # the tool's [lti] key (docs/lms.md)


def tool_pem() -> str:
    """Return the tool's private key, PEM, as the secrets file holds it."""
    return TOOL_KEY.export_to_pem(private_key=True, password=None).decode()


@pytest.fixture(scope="session")
def provider():
    """Yield the issuer URL of a real OpenID Connect provider serving on 127.0.0.1."""
    # Authlib's first import puts an "always" filter for its own deprecation warnings ahead of
    # pyproject's, so they would be shown all the same: import it first, then turn them off.
    authlib = pytest.importorskip("authlib.deprecate")
    warnings.filterwarnings("ignore", category=authlib.AuthlibDeprecationWarning)
    oidc = pytest.importorskip("oidc_provider_mock")
    from werkzeug.serving import make_server

    users = [oidc.User(sub=sub, claims=claims) for sub, claims in PEOPLE.items()]
    server = make_server("127.0.0.1", 0, oidc.app(user_claims=users), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join()


@pytest.fixture(scope="module")
def classroom(tmp_path_factory, provider, postgres):
    """Yield the app in the classroom mode, signing in through provider, its progress in a
    database of its own on the test session's PostgreSQL, made by the documented command."""
    OUTPUT.mkdir(exist_ok=True)
    folder, port = tmp_path_factory.mktemp("classroom"), free_port()
    database = postgres.new_database()
    upgrade = [sys.executable, "-m", "app.storage", "--url", database, "upgrade"]
    subprocess.run(upgrade, cwd=ROOT, check=True, capture_output=True, timeout=300)
    auth = {
        "redirect_uri": f"http://127.0.0.1:{port}/oauth2callback",
        "cookie_secret": secrets.token_hex(32),
        "client_id": "backprop-ninja",
        "client_secret": secrets.token_hex(16),
        "server_metadata_url": f"{provider}/.well-known/openid-configuration",
    }
    lines = [f"{key} = {json.dumps(value)}" for key, value in auth.items()]
    lti = f'[lti]\nkid = "{TOOL_KEY.kid}"\nprivate_key = """\n{tool_pem()}"""\n'  # LMS grades
    (folder / "secrets.toml").write_text("[auth]\n" + "\n".join(lines) + "\n" + lti)
    settings = {
        "NINJA_MODE": "classroom",
        "NINJA_INSTRUCTORS": INSTRUCTORS,
        "NINJA_TIME_LIMIT": str(LOOP_SECONDS),
        "NINJA_DATABASE_URL": database,
    }
    options = ("--secrets.files", str(folder / "secrets.toml"))
    log = OUTPUT / "classroom-server.log"
    running = start_server(folder / "var", log, settings=settings, port=port, options=options)
    running.database = database
    yield running
    stop_server(running.process)


@pytest.fixture
def two(browser):
    """Yield two pages in two browser contexts: two people, each with their own cookies."""
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1800}) for _ in range(2)]
    yield [c.new_page() for c in contexts]
    for context in contexts:
        context.close()


def sign_in_button(page):
    return page.get_by_role("button", name="Sign in")


def shows_only_the_sign_in_page(page) -> None:
    """Assert that the page is the sign-in page and offers nothing of the course."""
    expect(sign_in_button(page)).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("h1").first).to_contain_text("sign in")
    for hidden in (EDITOR, "a[href$='/dlogprobs']", "[data-testid='stFileUploader']"):
        assert page.locator(hidden).count() == 0, hidden
    assert page.get_by_text("Signed in as").count() == 0


def sign_in(page, app_url: str, provider: str, who: str) -> None:
    """Sign in as who: the app's button, the provider's form (a button per person), back."""
    open_page(page, app_url)
    sign_in_button(page).click()
    page.wait_for_url(f"{provider}/**", timeout=WAIT_MS)
    page.get_by_role("button", name=who, exact=True).click()
    page.wait_for_url(f"{app_url}/**", timeout=WAIT_MS)
    signed_in_as = page.get_by_text(f"Signed in as {PEOPLE[who]['name']}")
    signed_in_as.wait_for(timeout=WAIT_MS)


def issuer(provider: str) -> str:
    """Return the issuer the provider names in its discovery document."""
    address = f"{provider}/.well-known/openid-configuration"
    with urllib.request.urlopen(address, timeout=30) as response:
        return json.load(response)["issuer"]


def owners(classroom) -> set[str]:
    """Return the identities that own profiles in the app's database."""
    return {profile.owner for profile in open_store(classroom.database).learners.profiles()}


def test_a_signed_out_browser_sees_only_the_sign_in_page(classroom, page):
    for address in ("", "/dlogprobs", "/progress", "/whole_pass"):
        open_page(page, f"{classroom.url}{address}")
        shows_only_the_sign_in_page(page)
    page.screenshot(path=OUTPUT / "classroom-signed-out.png")
    assert not any(c["name"] == "ninja_learner" for c in page.context.cookies())


def test_two_learners_sign_in_and_never_see_each_others_work(classroom, provider, two):
    ada, bob = two
    sign_in(ada, classroom.url, provider, "ada")
    open_page(ada, f"{classroom.url}/dlogprobs")
    type_and_submit(ada, DLOGPROBS)
    badge(ada, SOLVED)
    sign_in(bob, classroom.url, provider, "bob")
    open_page(bob, f"{classroom.url}/dlogprobs")
    badge(bob, UNTOUCHED)
    assert "-1.0 / n" not in editor_text(bob), "bob sees ada's code"
    assert bob.locator("[data-testid='stSidebar'] input[role='combobox']").count() == 0
    ada.screenshot(path=OUTPUT / "classroom-ada.png")
    iss = issuer(provider)
    assert {f"{iss} ada", f"{iss} bob"} <= owners(classroom)


def test_signing_out_returns_to_the_sign_in_page(classroom, provider, page):
    sign_in(page, classroom.url, provider, "ivy")
    expect(page.get_by_text("Signed in as Ivy Instructor (instructor)")).to_be_visible()
    expect(page.get_by_text(SIGN_OUT)).to_be_visible()  # the provider's page, said beforehand
    page.get_by_role("button", name="Sign out").click()
    # Streamlit drops its sign-in cookie and ends the session at the provider too (OIDC
    # RP-initiated logout: the provider confirms, then sends the browser back to the app).
    page.wait_for_url(f"{provider}/oauth2/end_session**", timeout=WAIT_MS)
    assert not [c for c in page.context.cookies() if c["name"].startswith("_streamlit_user")]
    page.get_by_role("button", name="End session").click()
    page.wait_for_url(f"{classroom.url}/**", timeout=WAIT_MS)
    shows_only_the_sign_in_page(page)
    open_page(page, f"{classroom.url}/dlogprobs")
    shows_only_the_sign_in_page(page)
