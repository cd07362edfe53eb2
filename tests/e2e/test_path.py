"""In a real browser, a learner's path (issue 24): a bookmarked exercise on a first start, a
graded notebook on the map, the whole pass that points to its mistake, the scratchpad."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from grader import discover

from ..grader.fixtures import lecture_notebook as lecture
from .e2e_helpers import (
    EDITOR,
    LOOP_SECONDS,
    OUTPUT,
    editor_shows,
    open_page,
    start_server,
    stop_server,
    type_into,
)
from .test_teach import SOLVED_FILL, UNTRIED_FILL, node_fill

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PROOFS_MS = 600_000  # every exercise proven on a first start, on a busy machine
TIMEOUT_MS = 180_000
SCRATCH_TITLE = "Scratchpad: try code on the lecture batch"
UNTOUCHED, SOLVED_ICON = "radio_button_unchecked", "check_circle"  # Material icons' names
NO_KEEPDIM = "dcounts_sum_inv = (counts * dprobs).sum(1)\n"
WRONG_LINE = "dcounts = counts_sum_inv * dprobs * 2"


def _wrong_pass() -> str:
    """Return the lecture's pass with `dcounts` doubled, typeable in Ace (no comments, no
    indented loop: Ace indents by itself)."""
    lines = [ln for ln in lecture.EXERCISE1.splitlines() if ln and not ln.startswith("#")]
    lines = lines[: lines.index("dC = torch.zeros_like(C)") + 1]
    lines.append("dC.index_add_(0, Xb.view(-1), demb.view(-1, C.shape[1]))")
    code = "\n".join(lines) + "\n"
    return code.replace("dcounts = counts_sum_inv * dprobs", WRONG_LINE, 1)


WRONG_PASS = _wrong_pass()


@pytest.fixture
def first_start(tmp_path):
    """Yield an app started on a fresh data directory with nothing proven yet."""
    OUTPUT.mkdir(exist_ok=True)
    settings = {"NINJA_TIME_LIMIT": str(LOOP_SECONDS)}
    running = start_server(
        tmp_path / "var", OUTPUT / "server-first-start.log", settings=settings, prove=False
    )
    yield running
    stop_server(running.process)


def test_a_deep_link_on_a_first_start_waits_then_opens_its_exercise(first_start, page):
    page.goto(f"{first_start.url}/db1")
    page.get_by_text("Checking the exercises...").first.wait_for(timeout=TIMEOUT_MS)
    page.screenshot(path=OUTPUT / "deep-link-checking.png")
    page.locator(EDITOR).wait_for(timeout=PROOFS_MS)  # the exercise's own page: its editor
    expect(page.locator("h1", has_text="db1: a bias that batchnorm cancels")).to_be_visible()
    # the waiting page's elements stay, greyed, until the exercise's first run ends
    expect(page.get_by_text("Checking the exercises...")).to_have_count(0, timeout=TIMEOUT_MS)
    assert page.url.rstrip("/").endswith("/db1"), page.url
    assert page.get_by_text("Page not found").count() == 0
    page.screenshot(path=OUTPUT / "deep-link-opened.png")


def _whole_pass_link(page):
    """Return the sidebar's link to the lecture's whole pass."""
    return page.locator("[data-testid='stSidebarNav'] a", has_text="Whole pass: all 26")


@pytest.mark.timeout(1800)  # four exercises graded and four pages drawn, on a busy machine
def test_a_solved_notebook_turns_the_map_and_the_sidebar_green(server, page, tmp_path):
    solved = lecture.write(lecture.build(), tmp_path / "solved.ipynb")
    open_page(page, f"{server.url}/whole_pass")
    expect(_whole_pass_link(page)).to_contain_text(UNTOUCHED, timeout=TIMEOUT_MS)
    open_page(page, server.url)
    assert node_fill(page, "bngain") == UNTRIED_FILL
    open_page(page, f"{server.url}/whole_pass")
    page.get_by_text("Or grade your own notebook").wait_for(timeout=TIMEOUT_MS)
    page.locator("input[type='file']").set_input_files(str(solved))
    page.get_by_text("All 4 exercises of the notebook are solved.").wait_for(timeout=TIMEOUT_MS)
    expect(_whole_pass_link(page)).to_contain_text(SOLVED_ICON, timeout=TIMEOUT_MS)
    page.locator(".stMarkdownBadge", has_text=re.compile(r"\bSolved$")).first.wait_for(
        timeout=TIMEOUT_MS
    )
    page.screenshot(path=OUTPUT / "notebook-counts-whole-pass.png", full_page=True)
    open_page(page, server.url)
    page.get_by_text("Your map of the backward pass").wait_for(timeout=TIMEOUT_MS)
    assert node_fill(page, "bngain") == SOLVED_FILL
    page.screenshot(path=OUTPUT / "notebook-counts-home.png", full_page=True)
    open_page(page, f"{server.url}/progress")
    lecture_ids = [e.id for e in discover().exercises if e.scenario.slug == "01_mlp"]
    solved = page.get_by_test_id("stMetricValue").first
    # every exercise of the lecture, and its whole pass
    expect(solved).to_contain_text(f"{len(lecture_ids) + 1} of", timeout=TIMEOUT_MS)
    page.screenshot(path=OUTPUT / "notebook-counts-progress.png", full_page=True)


def test_the_whole_pass_diagnoses_its_first_wrong_row_and_opens_it_on_the_line(server, page):
    open_page(page, f"{server.url}/whole_pass")
    type_into(page, page.frame_locator(EDITOR), WRONG_PASS)
    page.keyboard.press("Control+Enter")
    said = page.get_by_text("What the dcounts exercise says of your lines", exact=False)
    said.wait_for(timeout=TIMEOUT_MS)
    page.screenshot(path=OUTPUT / "whole-pass-root-diagnosis.png", full_page=True)
    page.get_by_role("button", name="Open the dcounts exercise with your lines").click()
    page.locator("h1", has_text="dcounts").first.wait_for(timeout=TIMEOUT_MS)
    assert page.url.rstrip("/").endswith("/dcounts"), page.url
    assert editor_shows(page, WRONG_LINE).startswith(WRONG_LINE), "the learner's line"
    page.screenshot(path=OUTPUT / "whole-pass-root-opened.png", full_page=True)


def test_the_scratchpad_stays_open_across_a_submission_and_runs_with_ctrl_enter(server, page):
    open_page(page, f"{server.url}/dcounts_sum_inv")
    toggle = page.get_by_text(SCRATCH_TITLE)
    toggle.wait_for(timeout=TIMEOUT_MS)
    toggle.click()
    scratch = page.frame_locator(EDITOR).nth(1)
    type_into(page, scratch, "x = counts * dprobs\nprint(tuple(x.shape))\n")
    page.keyboard.press("Control+Enter")
    page.locator("code", has_text="(32, 27)").first.wait_for(timeout=TIMEOUT_MS)
    font = scratch.locator(".ace_editor").evaluate("e => getComputedStyle(e).fontFamily")
    assert "mono" in font.lower(), font
    type_into(page, page.frame_locator(EDITOR).first, NO_KEEPDIM)
    page.keyboard.press("Control+Enter")
    page.locator(".stMarkdownBadge", has_text="Attempted, not solved yet").wait_for(
        timeout=TIMEOUT_MS
    )
    expect(page.frame_locator(EDITOR).nth(1).locator(".ace_content")).to_contain_text(
        "x = counts * dprobs", timeout=TIMEOUT_MS
    )
    expect(page.locator("code", has_text="(32, 27)").first).to_be_visible()
    page.screenshot(path=OUTPUT / "scratchpad-open-after-submission.png", full_page=True)


def test_a_derivation_is_drawn_as_formulas(server, page):
    open_page(page, f"{server.url}/dlogits_fused")
    steps = page.get_by_text("Derive it step by step")
    steps.wait_for(timeout=TIMEOUT_MS)
    steps.click()
    page.get_by_role("button", name="Show step 1 of 6").click()
    page.locator(".katex").first.wait_for(timeout=TIMEOUT_MS)
    step = page.locator("[data-testid='stMarkdownContainer']", has_text="Step 1.").last
    assert step.locator(".katex").count() >= 2, "the loss and the softmax, as formulas"
    assert "$" not in step.inner_text(), "no TeX source left as text"
    page.screenshot(path=OUTPUT / "dlogits_fused-derivation-latex.png", full_page=True)
