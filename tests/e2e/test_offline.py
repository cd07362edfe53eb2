"""In a real browser: no page asks anything of another machine (fonts and assets are local)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from app.panels import offline

from .e2e_helpers import OUTPUT, WAIT_MS, open_page, type_and_submit

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
LOCAL_SCHEMES = {"data", "blob", "about"}
ANSWER = "dprobs = 1.0 / probs  # a wrong answer still shows every part of the feedback\n"


def local(url: str) -> bool:
    """Return whether a request's URL stays on this machine."""
    parts = urlsplit(url)
    return parts.scheme in LOCAL_SCHEMES or parts.hostname in LOCAL_HOSTS


def test_local_means_this_machine_only():
    assert local("http://127.0.0.1:8501/_stcore/health") and local("data:font/woff2;base64,AA")
    assert not local("https://fonts.googleapis.com/css2?family=Source+Code+Pro")
    assert not local("http://localhost.example.com/x")


def test_no_page_requests_anything_outside_the_machine(server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    requested: list[str] = []
    context.on("request", lambda request: requested.append(request.url))
    page = context.new_page()
    try:
        _visit_every_kind_of_page(server, page)
    finally:
        context.close()
    outside = sorted({url for url in requested if not local(url)})
    assert not outside, f"requests that left the machine: {outside}"
    editor_font = [u for u in requested if "/component/" in u and u.endswith(offline.FONT_FILE)]
    assert editor_font, "the editor's font came from the app's copy of the editor"


def _visit_every_kind_of_page(server, page) -> None:
    """Open Home, an exercise (submitting once), the whole pass, progress and training."""
    open_page(page, server.url)
    page.get_by_text("Your map of the backward pass").wait_for(timeout=WAIT_MS)
    open_page(page, f"{server.url}/dprobs")
    type_and_submit(page, ANSWER)
    page.get_by_text("Not yet.", exact=False).first.wait_for(timeout=WAIT_MS)
    page.screenshot(path=OUTPUT / "offline-exercise.png", full_page=True)
    for path in ("whole_pass", "progress", "training"):
        open_page(page, f"{server.url}/{path}")
        page.wait_for_load_state("networkidle", timeout=WAIT_MS)
