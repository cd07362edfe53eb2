"""In a real browser: upload a Jupyter notebook of the lecture on the whole-pass page and read
each exercise's result."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ..grader.fixtures import lecture_notebook as lecture
from .e2e_helpers import OUTPUT, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TIMEOUT_MS = 180_000  # four exercises graded, Exercise 4's first step included, on a busy machine
WRONG_DLOGITS = "dlogits = F.softmax(logits, 1)\ndlogits[range(n), Yb] -= 1\n"


def _grade(page, path) -> None:
    """Upload the notebook at path (the page grades it at once)."""
    page.locator("input[type='file']").set_input_files(str(path))


def _badges(page, text: str):
    """Return the badges of the notebook's parts saying text (the page's own status badge
    says Solved too once a solved notebook counts)."""
    parts = page.locator("[class*='st-key-notebook-part-']")
    return parts.locator(".stMarkdownBadge", has_text=re.compile(rf"\b{text}$"))


def test_upload_a_notebook_and_see_each_exercise_graded(server, page, tmp_path):
    solved = lecture.write(lecture.build(), tmp_path / "solved.ipynb")
    wrong = lecture.write(lecture.build(exercise2=WRONG_DLOGITS), tmp_path / "wrong.ipynb")
    open_page(page, f"{server.url}/whole_pass")
    page.get_by_text("Or grade your own notebook").wait_for(timeout=TIMEOUT_MS)
    _grade(page, solved)
    page.get_by_text("All 4 exercises of the notebook are solved.").wait_for(timeout=TIMEOUT_MS)
    for title in ("Exercise 1 (the whole pass)", "Exercise 4 (the training loop's backward pass)"):
        page.get_by_text(title).first.wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("All seven gradients match autograd", exact=False).wait_for(timeout=TIMEOUT_MS)
    expect(_badges(page, "Solved")).to_have_count(4, timeout=TIMEOUT_MS)
    page.screenshot(path=OUTPUT / "notebook-solved.png", full_page=True)
    _grade(page, wrong)
    page.get_by_text("Not solved yet: Exercise 2 (dlogits).").wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("every row's gradient is divided by n", exact=False).first.wait_for(
        timeout=TIMEOUT_MS
    )
    expect(_badges(page, "Not yet")).to_have_count(1, timeout=TIMEOUT_MS)
    expect(_badges(page, "Solved")).to_have_count(3, timeout=TIMEOUT_MS)
    page.screenshot(path=OUTPUT / "notebook-wrong-dlogits.png", full_page=True)
