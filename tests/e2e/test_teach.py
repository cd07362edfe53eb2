"""In a real browser: what the app teaches around the verdict. The why card after a solve, the
lecture's chapter linked, the scratchpad, the whole pass built from solved answers, and the
graph's colours following progress.

The server (and so the learner's profile) is shared by the whole e2e session: each test here
solves an exercise that no other browser test touches.
"""

from __future__ import annotations

import pytest

from .e2e_helpers import (
    EDITOR,
    OUTPUT,
    editor_shows,
    open_page,
    open_section,
    type_and_submit,
    type_into,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TIMEOUT_MS = 60_000
VIDEO = "https://www.youtube.com/watch?v=q8SA3rM6ckI"
SOLVED_FILL, UNTRIED_FILL = "#c8e6c9", "#ffffff"


def solve(page, url: str, code: str) -> None:
    """Open an exercise, submit code and wait for the verdict "Solved"."""
    open_page(page, url)
    type_and_submit(page, code)
    page.get_by_text("Solved.", exact=False).first.wait_for(timeout=TIMEOUT_MS)


def node_fill(page, name: str) -> str:
    """Return the fill colour of a node of the lecture's graph on the page, as drawn in SVG."""
    graph = page.locator(".stGraphVizChart svg").first
    graph.wait_for(timeout=TIMEOUT_MS)
    node = graph.locator("g.node").filter(has=page.locator(f"title:text-is('{name}')"))
    assert node.count() == 1, f"one node `{name}`"
    return node.locator("path, polygon").first.get_attribute("fill")


def test_a_why_card_opens_after_a_solve_and_the_lecture_is_linked(server, page):
    open_page(page, f"{server.url}/db1")
    link = page.get_by_role("link", name="about 1:20:16", exact=False)
    assert link.get_attribute("href") == f"{VIDEO}&t=4816"
    page.get_by_text("Solve it to open its why card").wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text("Why it is so").count() == 0, "no why card before the solve"
    type_and_submit(page, "db1 = dhprebn.sum(0)\n")
    page.get_by_text("Solved.", exact=False).first.wait_for(timeout=TIMEOUT_MS)
    card = page.locator(".st-key-whycard-db1")
    card.wait_for(timeout=TIMEOUT_MS)
    assert "Why it is so" in card.inner_text() and "batchnorm" in card.inner_text()
    card.scroll_into_view_if_needed()
    page.screenshot(path=OUTPUT / "db1-solved-why-card.png", full_page=True)


def test_the_derivation_opens_line_by_line(server, page):
    open_page(page, f"{server.url}/dlogits_fused")
    open_section(page, "Derive it step by step")
    page.get_by_role("button", name="Show step 1 of 6").click()
    page.get_by_text("Step 1.", exact=False).wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text("Step 2.", exact=False).count() == 0
    page.get_by_role("button", name="Show step 2 of 6").click()
    page.get_by_text("Step 2.", exact=False).wait_for(timeout=TIMEOUT_MS)
    page.screenshot(path=OUTPUT / "dlogits_fused-derivation.png", full_page=True)


def test_the_scratchpad_shows_a_shape_and_refuses_autograd_like_the_grader(server, page):
    open_page(page, f"{server.url}/dbnraw")
    toggle = page.get_by_text("Scratchpad: try code on the lecture batch")
    toggle.wait_for(timeout=TIMEOUT_MS)
    toggle.click()
    scratch = page.frame_locator(EDITOR).nth(1)  # the answer's editor is the first
    type_into(page, scratch, "x = bngain * dhpreact\nprint(tuple(x.shape))\n")
    page.keyboard.press("Control+Enter")
    page.locator("code", has_text="(32, 64)").first.wait_for(timeout=TIMEOUT_MS)
    type_into(page, scratch, "y = (bnraw * dhpreact).sum()\ny.backward()\n")
    page.keyboard.press("Control+Enter")
    refusal = page.locator(".stAlert", has_text="Your code uses autograd")
    refusal.wait_for(timeout=TIMEOUT_MS)
    assert "backward) on line 2; write the gradient by hand." in refusal.inner_text()
    page.screenshot(path=OUTPUT / "dbnraw-scratchpad-refuses-autograd.png", full_page=True)


def test_the_whole_pass_is_prefilled_from_solved_answers(server, page):
    solve(page, f"{server.url}/dbnbias", "dbnbias = dhpreact.sum(0, keepdim=True)\n")
    open_page(page, f"{server.url}/whole_pass")
    text = editor_shows(page, "# Exercise 1")
    assert "dbnbias = dhpreact.sum(0, keepdim=True)" in text, "my solved answer"
    assert "dbnvar = ...  # (1, n_hidden)" in text, "an unsolved one stays a blank"


def test_the_graphs_node_colour_follows_progress(server, page):
    open_page(page, server.url)
    assert node_fill(page, "bngain") == UNTRIED_FILL
    solve(page, f"{server.url}/dbngain", "dbngain = (bnraw * dhpreact).sum(0, keepdim=True)\n")
    open_page(page, server.url)
    page.get_by_text("Your map of the backward pass").wait_for(timeout=TIMEOUT_MS)
    assert node_fill(page, "bngain") == SOLVED_FILL
    page.screenshot(path=OUTPUT / "home-graph-progress.png", full_page=True)
