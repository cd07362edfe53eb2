"""In a real browser: type answers into the editor, press Ctrl+Enter, read the feedback."""

from __future__ import annotations

import re

import pytest

from .e2e_helpers import EDITOR, OUTPUT, editor_shows, open_page, type_and_submit

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DLOGPROBS = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / n\n"
NO_KEEPDIM = "dcounts_sum_inv = (counts * dprobs).sum(1)\n"
TIMEOUT_MS = 60_000


def test_home_shows_the_map_and_the_dataset(server, page):
    open_page(page, server.url)
    page.get_by_text("Your map of the backward pass").wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("30,460 words").wait_for(timeout=TIMEOUT_MS)
    page.screenshot(path=OUTPUT / "home.png", full_page=True)


def test_solve_dlogprobs_then_reload_and_it_is_still_solved(server, page):
    open_page(page, f"{server.url}/dlogprobs")
    type_and_submit(page, DLOGPROBS)
    page.get_by_text("Solved.", exact=False).first.wait_for(timeout=TIMEOUT_MS)
    page.locator(".stMarkdownBadge", has_text=re.compile(r"\bSolved$")).wait_for(timeout=TIMEOUT_MS)
    page.screenshot(path=OUTPUT / "dlogprobs-solved.png")
    page.reload()
    page.get_by_text("Your last attempt (1 so far): solved.").wait_for(timeout=TIMEOUT_MS)
    page.locator(".stMarkdownBadge", has_text=re.compile(r"\bSolved$")).wait_for(timeout=TIMEOUT_MS)
    # the editor is drawn after the page's text, later still on a busy machine: wait for it
    text = editor_shows(page, "dlogprobs = torch.zeros_like", seconds=30)
    assert "dlogprobs[range(n), Yb] = -1.0 / n" in text, "the draft is back"
    page.screenshot(path=OUTPUT / "dlogprobs-after-reload.png")


def test_a_wrong_dcounts_sum_inv_gets_the_shape_message(server, page):
    open_page(page, f"{server.url}/dcounts_sum_inv")
    type_and_submit(page, NO_KEEPDIM)
    why = "has the wrong shape: the values are right but a dimension was dropped; sum with keepdim"
    page.get_by_text(f"Not yet. dcounts_sum_inv {why}", exact=False).first.wait_for(
        timeout=TIMEOUT_MS
    )  # the mistake first, the shapes after it
    shapes = "=True. Got (32,) = (n,), expected (32, 1) = (n, 1)."
    page.get_by_text(shapes, exact=False).first.wait_for(timeout=TIMEOUT_MS)
    page.locator(".stMarkdownBadge", has_text="Attempted, not solved yet").wait_for(
        timeout=TIMEOUT_MS
    )
    page.screenshot(path=OUTPUT / "dcounts_sum_inv-shape.png")


def test_the_editor_highlights_indents_with_tab_and_keeps_a_draft(server, page):
    open_page(page, f"{server.url}/dprobs")
    editor = page.frame_locator(EDITOR)
    editor.locator(".ace_content").wait_for(timeout=TIMEOUT_MS)
    editor.locator(".ace_content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Backspace")
    page.keyboard.type("dprobs = None if True else 0")
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    indented = "    dprobs = None if True else 0"
    assert editor_shows(page, indented).startswith(indented), "Tab indents"
    assert editor.locator(".ace_keyword", has_text="if").count() == 1, "Python is highlighted"
    page.locator("h1").first.click()  # leaving the editor saves the draft, unsubmitted
    assert server.draft("dprobs", indented), "the draft is saved without a submission"
    page.reload()
    page.locator("h1").first.wait_for(timeout=TIMEOUT_MS)
    editor.locator(".ace_content").wait_for(timeout=TIMEOUT_MS)
    assert editor_shows(page, indented).startswith(indented), "the draft is back"
    page.screenshot(path=OUTPUT / "dprobs-draft-after-reload.png")


def test_the_server_log_has_no_warning_or_traceback(server, page):
    open_page(page, server.url)
    log = server.log_without_dumps()
    assert "URL: http://" in log
    for bad in ("Traceback", "WARNING", "Warning", "Error", "error"):
        assert bad not in log, f"the server log has {bad!r}:\n{log}"
