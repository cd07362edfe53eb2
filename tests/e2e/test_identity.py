"""In real browsers: two learners on one machine never see or switch each other's work."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from .e2e_helpers import OUTPUT, WAIT_MS, open_page, type_and_submit

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DLOGPROBS = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / n\n"
SOLVED = re.compile(r"\bSolved$")
UNTOUCHED = "Not attempted yet"


@pytest.fixture
def two(browser):
    """Yield two pages in two browser contexts: two people, each with their own cookies."""
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1800}) for _ in range(2)]
    yield [c.new_page() for c in contexts]
    for context in contexts:
        context.close()


def badge(page, text) -> None:
    """Wait until the exercise's status badge reads text."""
    page.locator(".stMarkdownBadge", has_text=text).wait_for(timeout=WAIT_MS)


def picker(page):
    """Return the sidebar's profile picker."""
    return page.locator("[data-testid='stSidebar'] input[role='combobox']")


def profile_options(page) -> list[str]:
    """Return the names the sidebar's profile picker offers, then close it."""
    options = page.get_by_role("option")
    for _ in range(5):  # a rerun may redraw the sidebar just as it is clicked
        page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox'] button").last.click()
        try:
            options.first.wait_for(timeout=WAIT_MS // 5)
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    names = [o.strip() for o in options.all_inner_texts()]
    page.keyboard.press("Escape")
    return names


def create_profile(page, name: str) -> None:
    """Create a profile from the sidebar's popover and wait until it is picked."""
    page.get_by_role("button", name="New profile").click()
    page.get_by_label("Name").fill(name)
    page.get_by_role("button", name="Create").click()
    expect(picker(page)).to_have_value(name, timeout=WAIT_MS)


def test_two_browsers_never_see_each_others_progress_or_profiles(server, two):
    ada, bob = two
    open_page(ada, f"{server.url}/dlogprobs")
    open_page(bob, f"{server.url}/dlogprobs")
    type_and_submit(ada, DLOGPROBS)
    badge(ada, SOLVED)
    bob.reload()
    badge(bob, UNTOUCHED)
    create_profile(ada, "ada lovelace")
    for page in (ada, bob):
        page.reload()
        page.locator("h1").first.wait_for(timeout=WAIT_MS)
    badge(bob, UNTOUCHED)
    expect(picker(ada)).to_have_value("ada lovelace", timeout=WAIT_MS)
    badge(ada, UNTOUCHED)  # the new profile's progress, not the first one's
    assert profile_options(bob) == ["learner"]
    assert profile_options(ada) == ["learner", "ada lovelace"]
    ada.screenshot(path=OUTPUT / "identity-ada.png")
    bob.screenshot(path=OUTPUT / "identity-bob.png")
    with contextlib.closing(sqlite3.connect(server.data_dir / "progress.sqlite3")) as db:
        owners = {row[0] for row in db.execute("SELECT owner FROM profiles")}
    assert len(owners) >= 2 and "" not in owners, "each browser has an identity of its own"


def test_a_forged_cookie_gets_a_new_identity(server, two):
    ada, forger = two
    open_page(ada, f"{server.url}/dlogprobs")
    type_and_submit(ada, DLOGPROBS)
    badge(ada, SOLVED)
    [cookie] = [c for c in ada.context.cookies() if c["name"] == "ninja_learner"]
    identity, _, mac = cookie["value"].partition(".")
    forged = {**cookie, "value": f"{identity}.{mac[::-1]}"}
    forger.context.add_cookies([forged])
    open_page(forger, f"{server.url}/dlogprobs")
    badge(forger, UNTOUCHED)
    assert saved_identity(forger, other_than=identity), "the page saved a new identity"


def saved_identity(page, other_than: str, seconds: float = 20) -> str | None:
    """Return the identity in the page's cookie once it is not other_than, else None."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        values = [c["value"] for c in page.context.cookies() if c["name"] == "ninja_learner"]
        if values and not values[0].startswith(f"{other_than}."):
            return values[0].partition(".")[0]
        time.sleep(0.2)
    return None
