"""In a real browser: upload a Jupyter notebook of the lecture on the whole-pass page and read
each exercise's result: the lecture's own notebook first reads that it matches the lecture, then
the one shape to fix (issue 40); a wrong Exercise 2 is named. (A solved notebook counting on
the map and in Progress is test_path.py's.)"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ..grader.fixtures import lecture_notebook as lecture
from .e2e_helpers import OUTPUT, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TIMEOUT_MS = 180_000  # four exercises graded, Exercise 4's first step included, on a busy machine
WRONG_DLOGITS = "dlogits = F.softmax(logits, 1)\ndlogits[range(n), Yb] -= 1\n"
LECTURES_SLIP = ("(-dbndiff).sum(0, keepdim=True)", "(-dbndiff).sum(0)")  # dbnmeani's line
LONG_NAME = "my-notebook-of-the-becoming-a-backprop-ninja-lecture.ipynb"  # the uploader cuts it


def _grade(page, path) -> None:
    """Upload the notebook at path (the page grades it at once)."""
    page.locator("input[type='file']").set_input_files(str(path))


def _badges(page, text: str):
    """Return the badges of the notebook's parts saying text (the page's own status badge
    says Solved too once a solved notebook counts)."""
    parts = page.locator("[class*='st-key-notebook-part-']")
    return parts.locator(".stMarkdownBadge", has_text=re.compile(rf"\b{text}$"))


def test_upload_a_notebook_and_see_each_exercise_graded(server, page, tmp_path):
    # the lecture's own notebook: its dbnmeani line drops keepdim, which the lecture's cmp passes
    own = lecture.EXERCISE1.replace(*LECTURES_SLIP)
    path = lecture.write(lecture.build(exercise1=own), tmp_path / LONG_NAME)
    wrong = lecture.write(lecture.build(exercise2=WRONG_DLOGITS), tmp_path / "wrong.ipynb")
    open_page(page, f"{server.url}/whole_pass")
    page.get_by_text("Or grade your own notebook").wait_for(timeout=TIMEOUT_MS)
    _grade(page, path)
    # first that it matches the lecture (a warning, not a red verdict), then the one shape
    first = page.get_by_test_id("stAlert").filter(has_text="Your notebook matches the lecture")
    first.wait_for(timeout=TIMEOUT_MS)
    expect(first).to_contain_text("One shape is left to fix, which cmp lets through: dbnmeani")
    report = page.locator("[data-testid='stAlert']", has_text="notebook")
    assert report.first.inner_text() == first.inner_text(), "the notebook's first line of feedback"
    assert "stAlertContentWarning" in first.inner_html()
    expect(_badges(page, "Values right, a shape to fix")).to_have_count(1, timeout=TIMEOUT_MS)
    expect(_badges(page, "Solved")).to_have_count(3, timeout=TIMEOUT_MS)
    expect(page.get_by_text("shape (64,), expected (1, 64)", exact=False).first).to_be_visible()
    page.get_by_text("All seven gradients match autograd", exact=False).wait_for(timeout=TIMEOUT_MS)
    expect(page.get_by_text(f"Graded: {LONG_NAME}")).to_be_visible()  # its name in full
    page.screenshot(path=OUTPUT / "notebook-lectures-own.png", full_page=True)
    _grade(page, wrong)
    page.get_by_text("Not solved yet: Exercise 2 (dlogits).").wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("every row's gradient is divided by n", exact=False).first.wait_for(
        timeout=TIMEOUT_MS
    )
    expect(_badges(page, "Not yet")).to_have_count(1, timeout=TIMEOUT_MS)
    expect(_badges(page, "Solved")).to_have_count(3, timeout=TIMEOUT_MS)
    page.screenshot(path=OUTPUT / "notebook-wrong-dlogits.png", full_page=True)
