"""A class an attacker cannot bend (issue 34), attacked through the real stack: the OpenID Connect
test provider, PostgreSQL, HAProxy and two replicas of `deploy/stack up` (the session's one
stack, tests/e2e/stack_helpers.py), in real browsers. One class of attack per section:

1. a copied sign-in cookie after sign-out, after the absolute and idle lifetimes, after an
   instructor ended the person's sessions: refused on both replicas;
2. an instructor's e-mail address the provider did not verify (`email_verified` a string or
   absent), a group asserted by another tenant: no role;
3. claims the app cannot keep (a NUL, a control character, a name too long): a clear page,
   never an exception; a full-width name shown in NFKC form;
4. the dashboard's gradebook: no cell a `;` spreadsheet reads as a formula, look-alike names
   flagged, learners keyed by a stable id;
5. a learner over their limits (submissions a minute on every replica, word lists a day, the
   length of a draft): refused saying which limit and when it frees, the dashboard naming them.

The provider makes any account a test asks for (its `PUT /users/<sub>`); a test signs in as it
by typing its subject in the provider's form. Where a case needs time to pass (12 hours), it
moves the sign-in's row back in the database, as the hours would.
"""

from __future__ import annotations

import csv
import io
import json
import time
import urllib.request

import psycopg
import pytest
from playwright.sync_api import expect

from app.storage import Attempt, open_store

from .e2e_helpers import OUTPUT, WAIT_MS, open_page, type_and_submit
from .stack_helpers import operator_tools, provider_url, replica_of
from .test_identity import DLOGPROBS

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPLICAS = ("replica1", "replica2")
ENDED = "Your session has ended"
FORMULA = ("=", "+", "-", "@", "\t", "\r")
VIEW = {"width": 1400, "height": 1800}
TENANT = {"tid": "class-tenant"}  # deploy/stack's: roles only from it (so the cases are fair)


@pytest.fixture(scope="module")
def stack(running):
    """Return the session's stack with both replicas answering (a test of test_stack.py may
    have killed one: it is started again, as an operator would)."""
    tools, folder = operator_tools(), running["folder"]
    from pathlib import Path

    secrets_file = Path(folder) / "secrets.toml"
    for i, name in enumerate(REPLICAS, start=1):
        part = running["parts"][name]
        if not tools.alive(part):
            port = running["ports"]["replicas"][i - 1]
            url = running["database_url"]
            part.update(tools.start_replica(Path(folder), i, port, url, secrets_file))
            health = tools.health_checks(running)[name]
            tools.wait_until({name: (part, health)})
    return running


def account(state: dict, sub: str, claims: dict) -> None:
    """Make (or remake) the provider's account `sub` with these claims."""
    request = urllib.request.Request(
        f"{provider_url(state)}/users/{sub}",
        data=json.dumps(claims).encode(),
        method="PUT",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 204


def sign_in_as(page, state: dict, sub: str) -> None:
    """Sign in through the provider's form as `sub`, and wait for the app's page."""
    url, provider = state["url"], provider_url(state)
    open_page(page, url)
    page.get_by_role("button", name="Sign in").click(timeout=WAIT_MS)
    page.wait_for_url(f"{provider}/**", timeout=WAIT_MS)
    page.locator("input[name='sub']").fill(sub)
    page.get_by_role("button", name="Authorize").click(timeout=WAIT_MS)
    page.wait_for_url(f"{url}/**", timeout=WAIT_MS)
    page.locator("h1").first.wait_for(timeout=WAIT_MS)


def signed_in(page, name: str) -> str:
    """Wait until the sidebar says who is signed in; return its line."""
    line = page.get_by_text(f"Signed in as {name}")
    line.wait_for(timeout=WAIT_MS)
    return line.inner_text()


def sign_in_cookies(page) -> list[dict]:
    """Return the browser's Streamlit sign-in cookies: what a copy would carry."""
    return [c for c in page.context.cookies() if c["name"].startswith("_streamlit_user")]


def with_copied_cookies(browser, state: dict, cookies: list[dict], replica: str):
    """Return a page in a fresh browser holding the copied cookies, sent to `replica`."""
    context = browser.new_context(viewport=VIEW)
    host = cookies[0]["domain"]
    affinity = {"name": "NINJA_REPLICA", "value": replica, "domain": host, "path": "/"}
    context.add_cookies([*cookies, affinity])
    page = context.new_page()
    open_page(page, state["url"])
    assert replica_of(page, state["url"]) == replica
    return page


def refused(page, why: str = ENDED) -> None:
    """Assert that the page is the sign-in page, saying why, and shows nothing signed in."""
    expect(page.get_by_text(why).first).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("h1").first).to_contain_text("sign in")
    assert page.get_by_text("Signed in as").count() == 0


def copies_refused(browser, state: dict, cookies: list[dict], shot: str) -> None:
    """A copy of the cookies is refused on each replica."""
    for replica in REPLICAS:
        page = with_copied_cookies(browser, state, cookies, replica)
        refused(page)
        page.screenshot(path=OUTPUT / f"attack-{shot}-{replica}.png")
        page.context.close()


def database(state: dict, sql: str, args: dict) -> None:
    with psycopg.connect(state["database_url"], autocommit=True) as db:
        db.execute(sql, args)


def fresh(browser):
    return browser.new_context(viewport=VIEW).new_page()


# 1. Sign-out, lifetimes and an instructor end a session, whatever a copied cookie says ----------


def test_a_copied_cookie_is_refused_after_sign_out_on_both_replicas(stack, browser):
    account(stack, "sam", {"name": "Sam Shared", "email": "sam@class.test"})
    page = fresh(browser)
    sign_in_as(page, stack, "sam")
    signed_in(page, "Sam Shared")
    copied = sign_in_cookies(page)
    assert copied, "the sign-in cookie to copy"
    for replica in REPLICAS:  # the copy admits while the sign-in lives (the test can fail)
        check = with_copied_cookies(browser, stack, copied, replica)
        signed_in(check, "Sam Shared")
        check.context.close()
    page.get_by_role("button", name="Sign out").click(timeout=WAIT_MS)
    page.wait_for_url(f"{provider_url(stack)}/oauth2/end_session**", timeout=WAIT_MS)
    copies_refused(browser, stack, copied, "signed-out")
    page.context.close()


@pytest.mark.parametrize(
    ("column", "hours"), [("issued", 13), ("last_seen", 3)], ids=["absolute", "idle"]
)
def test_a_copied_cookie_is_refused_after_a_lifetime_on_both_replicas(
    stack, browser, column, hours
):
    sub = f"lab-{column}"
    account(stack, sub, {"name": f"Lab {column}", "email": f"{sub}@class.test"})
    page = fresh(browser)
    sign_in_as(page, stack, sub)
    signed_in(page, f"Lab {column}")
    copied = sign_in_cookies(page)
    owner = f"{provider_url(stack)} {sub}"
    database(  # the hours pass (12 h absolute, 2 h idle by default)
        stack,
        f"UPDATE sessions SET {column} = {column} - %(s)s WHERE owner = %(o)s",
        {"s": hours * 3600, "o": owner},
    )
    copies_refused(browser, stack, copied, column)
    page.reload()
    refused(page)
    page.context.close()


def test_an_instructor_ends_a_learners_sessions_on_both_replicas(stack, browser):
    account(stack, "eve", {"name": "Eve Elsewhere", "email": "eve@class.test"})
    eve = fresh(browser)
    sign_in_as(eve, stack, "eve")
    signed_in(eve, "Eve Elsewhere")
    copied = sign_in_cookies(eve)
    ivy = fresh(browser)
    sign_in_as(ivy, stack, "ivy")
    signed_in(ivy, "Ivy Instructor (instructor)")
    open_page(ivy, f"{stack['url']}/instructor")
    ivy.get_by_role("tab", name="Sign-ins and limits").click(timeout=WAIT_MS)
    ivy.get_by_text("Signed in now").wait_for(timeout=WAIT_MS)
    ivy.locator("[data-testid='stSelectbox']", has_text="End the sign-ins of").click()
    ivy.get_by_role("option", name="Eve Elsewhere").click(timeout=WAIT_MS)
    ivy.get_by_role("button", name="End their sessions").click(timeout=WAIT_MS)
    ivy.get_by_text("Ended 1 sign-in(s) of Eve Elsewhere").wait_for(timeout=WAIT_MS)
    ivy.screenshot(path=OUTPUT / "attack-ended-by-instructor.png", full_page=True)
    copies_refused(browser, stack, copied, "ended")
    eve.reload()
    refused(eve)
    eve.context.close(), ivy.context.close()


# 2. Roles only from what the provider proves ---------------------------------------------------

ABSENT = object()
UNVERIFIED = ["False", "FALSE", "0", "no", ABSENT, "true"]


@pytest.mark.parametrize(
    "verified", UNVERIFIED, ids=["absent" if v is ABSENT else repr(v) for v in UNVERIFIED]
)
def test_an_instructors_address_the_provider_did_not_verify_gives_no_role(stack, browser, verified):
    claims = {"name": "Mallory Mail", "email": "ivy@class.test"} | TENANT  # her address
    if verified is not ABSENT:
        claims["email_verified"] = verified
    sub = f"mallory-{UNVERIFIED.index(verified)}"
    account(stack, sub, claims)
    page = fresh(browser)
    sign_in_as(page, stack, sub)
    assert signed_in(page, "Mallory Mail") == "Signed in as Mallory Mail"  # no "(instructor)"
    open_page(page, f"{stack['url']}/instructor")
    page.get_by_text("This page is for the course's instructors only.").wait_for(timeout=WAIT_MS)
    page.context.close()


def test_a_group_counts_only_from_the_configured_tenant(stack, browser):
    """deploy/stack names instructors by the group `staff` of the tenant `class-tenant`."""
    account(stack, "gus", {"name": "Gus Guest", "groups": ["staff"], "tid": "guest-tenant"})
    account(stack, "tess", {"name": "Tess Teacher", "groups": ["staff"]} | TENANT)
    page = fresh(browser)
    sign_in_as(page, stack, "gus")
    assert signed_in(page, "Gus Guest") == "Signed in as Gus Guest"
    page.context.clear_cookies()
    sign_in_as(page, stack, "tess")
    assert signed_in(page, "Tess Teacher") == "Signed in as Tess Teacher (instructor)"
    page.context.close()


# 3. Claims checked at sign-in: a clear page, never an exception --------------------------------

BAD = [
    ("nul", {"name": "Nul\u0000Name"}, "name", "holds a control character"),
    ("escape", {"name": "\u001b[31mRed"}, "name", "holds a control character"),
    ("long", {"name": "L" * 5000}, "name", "is longer than 200 characters"),
    ("groups", {"name": "Grp", "groups": ["a\u0000b"]}, "groups", "holds a control character"),
]


@pytest.mark.parametrize(("sub", "claims", "claim", "why"), BAD, ids=[b[0] for b in BAD])
def test_a_claim_the_app_cannot_keep_gets_a_clear_page(stack, browser, sub, claims, claim, why):
    account(stack, f"bad-{sub}", claims)
    page = fresh(browser)
    sign_in_as(page, stack, f"bad-{sub}")
    refused(page, f"this app cannot accept: it {why}")
    expect(page.locator("code", has_text=claim).first).to_be_visible()
    body = page.locator("body").inner_text()
    assert "Traceback" not in body and "Error" not in body.replace("error", "")
    page.get_by_role("button", name="Sign out").wait_for(timeout=WAIT_MS)
    page.screenshot(path=OUTPUT / f"attack-claim-{sub}.png")
    page.context.close()


def test_a_full_width_name_is_shown_in_nfkc_form(stack, browser):
    account(stack, "wide", {"name": "\uff37\uff49\uff44\uff45 Wendy"})
    page = fresh(browser)
    sign_in_as(page, stack, "wide")
    signed_in(page, "Wide Wendy")
    page.context.close()


# 4. The dashboard's gradebook: no formula in a `;` spreadsheet, look-alikes flagged -------------

LOOKALIKES = {"la-ada": "ada", "la-zwsp": "ada\u200b", "la-cyrillic": "\u0430da"}
HOSTILE_SUMMARY = 'wrong;=HYPERLINK("http://evil";"x"),-2+3\t@SUM(1)'


def test_the_dashboards_gradebook_has_no_formula_and_flags_look_alikes(stack, browser):
    page = fresh(browser)
    for sub, name in {**LOOKALIKES, "la-formula": "=1+1;@x"}.items():
        account(stack, sub, {"name": name})
        sign_in_as(page, stack, sub)
        page.get_by_text("Signed in as").wait_for(timeout=WAIT_MS)
        page.context.clear_cookies()
    store = open_store(stack["database_url"])
    issuer = provider_url(stack)
    for profile in store.learners.profiles():  # each one's answer, as the app records it
        if profile.owner.startswith(f"{issuer} la-"):
            attempt = Attempt("dh", "dh = 1", False, HOSTILE_SUMMARY, 0.1, 5.0, "default")
            store.work.record_attempt(profile, attempt)
    sign_in_as(page, stack, "ivy")
    open_page(page, f"{stack['url']}/instructor")
    page.get_by_role("tab", name="Gradebook").click(timeout=WAIT_MS)
    books = {}
    for suffix in ("csv", "wide.csv", "json"):
        with page.expect_download(timeout=WAIT_MS) as download:
            page.get_by_role("button", name=f"Download gradebook.{suffix}").click()
        books[suffix] = download.value.path().read_text(encoding="utf-8-sig")
    for suffix in ("csv", "wide.csv"):
        (OUTPUT / f"attack-gradebook.{suffix}").write_text(books[suffix])
        for delimiter in (";", ","):
            rows = list(csv.reader(io.StringIO(books[suffix]), delimiter=delimiter))
            cells = [c for row in rows for c in row]
            assert not [c for c in cells if c.lstrip(" ").startswith(FORMULA)], (suffix, delimiter)
    found = {e["learner"]: e for e in json.loads(books["json"])["learners"]}
    keys = {f"{issuer} {sub}" for sub in LOOKALIKES}
    assert keys <= set(found), "each learner keyed by their identity, never their name"
    for learner in keys:
        assert set(found[learner]["possibly_same_as"]) == keys - {learner}, learner
    page.context.close()


# 5. Per-learner limits: which, and when it frees; the dashboard names who met them --------------


def test_a_learner_over_their_submissions_a_minute_is_refused_on_both_replicas(stack, browser):
    account(stack, "flo", {"name": "Flo Flood"})
    pages = []
    for replica in REPLICAS:
        page = fresh(browser)
        page.context.add_cookies([{"name": "NINJA_REPLICA", "value": replica, "url": stack["url"]}])
        sign_in_as(page, stack, "flo")
        assert replica_of(page, stack["url"]) == replica
        pages.append(page)
    store, now = open_store(stack["database_url"]), time.time()
    [flo] = [p for p in store.learners.profiles() if p.owner.endswith(" flo")]
    for _ in range(30):  # a flood from other tabs in the last minute
        store.work.record_attempt(
            flo, Attempt("dprobs", "x", False, "s", 0.0, 0.0, "default", now - 20)
        )
    for page in pages:
        open_page(page, f"{stack['url']}/dlogprobs")
        type_and_submit(page, DLOGPROBS)
        expect(page.get_by_text("You have submitted 30 times in the last minute")).to_be_visible(
            timeout=WAIT_MS
        )
        expect(page.get_by_text("; submit again in")).to_be_visible()
    pages[0].screenshot(path=OUTPUT / "attack-flood-refused.png", full_page=True)
    ivy = pages[1]
    ivy.context.clear_cookies()
    sign_in_as(ivy, stack, "ivy")
    open_page(ivy, f"{stack['url']}/instructor")
    ivy.get_by_role("tab", name="Sign-ins and limits").click(timeout=WAIT_MS)
    row = ivy.get_by_text("submissions a minute")  # a cell of the grid (drawn on a canvas)
    expect(row.first).to_be_attached(timeout=WAIT_MS)
    for page in pages:
        page.context.close()


def test_a_learner_over_their_word_lists_a_day_gets_no_uploader(stack, browser):
    account(stack, "wes", {"name": "Wes Words"})
    page = fresh(browser)
    sign_in_as(page, stack, "wes")
    signed_in(page, "Wes Words")
    [wes] = [
        p for p in open_store(stack["database_url"]).learners.profiles() if p.owner.endswith("wes")
    ]
    for n in range(10):
        database(
            stack,
            "INSERT INTO word_list_uploads (profile_id, digest, created_at) VALUES (%s, %s, %s)",
            (wes.id, f"{n:012x}", time.time() - 3600),
        )
    page.get_by_text("Change the dataset").click(timeout=WAIT_MS)
    refused = page.get_by_text("You have uploaded 10 word lists in the last 24 hours")
    _choose(page, "My own word list", then=refused)
    assert page.locator("[data-testid='stFileUploader']").count() == 0
    page.context.close()


def _choose(page, label: str, then) -> None:
    """Pick a radio option and wait for what it shows (`then`, a locator). A click that lands
    while the page's run is still drawing can be undone by that run (Streamlit draws the widget
    again with its value then: a run of 2026-12-06 showed the default still checked after the
    click, and nothing shown), so a learner, and this test, picks it again; three tries."""
    for _ in range(2):
        page.get_by_text(label).click(timeout=WAIT_MS)
        try:
            expect(then).to_be_visible(timeout=40_000)
            return
        except AssertionError:
            continue
    page.get_by_text(label).click(timeout=WAIT_MS)
    expect(then).to_be_visible(timeout=WAIT_MS)


def test_a_draft_longer_than_a_learner_may_keep_is_refused(stack, browser):
    account(stack, "dora", {"name": "Dora Draft"})
    page = fresh(browser)
    sign_in_as(page, stack, "dora")
    open_page(page, f"{stack['url']}/dlogprobs")
    long = "# too long\nx = '" + "a" * 72_000 + "'\n"  # 72,018 bytes: 71 KiB, one line pasted
    type_and_submit(page, long)
    expect(page.get_by_text("Your code is 71 KiB, longer than the 64 KiB").first).to_be_visible(
        timeout=WAIT_MS
    )
    owner = f"{provider_url(stack)} dora"
    with psycopg.connect(stack["database_url"]) as db:
        kept = db.execute(
            "SELECT COALESCE(MAX(LENGTH(d.code)), 0), (SELECT COUNT(*) FROM attempts a"
            " JOIN profiles q ON q.id = a.profile_id WHERE q.owner = %(o)s)"
            " FROM drafts d JOIN profiles p ON p.id = d.profile_id WHERE p.owner = %(o)s",
            {"o": owner},
        ).fetchone()
    assert kept[0] < 64 * 1024 and kept[1] == 0, kept
    page.context.close()
