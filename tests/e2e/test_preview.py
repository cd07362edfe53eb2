"""In a real browser: the instructor's preview (issue 25). The shared server runs in the local
mode, where whoever runs the app is the instructor: switched on, an exercise shows as solved
(the reference answer graded for real, the why card, the answer) without being solved, and
nothing is recorded. tests/app/panels/test_preview.py shows that learners never get the switch."""

from __future__ import annotations

import contextlib
import sqlite3

import pytest

from app.panels import preview

from .e2e_helpers import OUTPUT, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TIMEOUT_MS = 60_000
EXERCISE = "dbndiff2"


def _attempts(server) -> int:
    """Return how many attempts at EXERCISE the server's database holds, any learner's (0
    before the database exists: opening it here must not create it)."""
    path = server.data_dir / "progress.sqlite3"
    if not path.exists():
        return 0
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        query = "SELECT COUNT(*) FROM attempts WHERE exercise_id = ?"
        return db.execute(query, (EXERCISE,)).fetchone()[0]


def test_an_instructor_previews_an_exercise_as_solved(server, page):
    before = _attempts(server)  # the shared server's other browsers may have answered it
    open_page(page, f"{server.url}/{EXERCISE}")
    page.get_by_text("Not attempted yet").first.wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text("Instructor preview").count() == 0, "off until switched on"
    page.get_by_text(preview.SWITCH).click()
    box = page.locator(f".st-key-instructor-preview-{EXERCISE}")
    box.get_by_text("Solved.", exact=False).first.wait_for(timeout=TIMEOUT_MS)
    shown = box.inner_text()
    assert "Instructor preview" in shown and "Why it is so" in shown
    assert "torch.ones_like(bndiff2)" in shown, "the reference answer"
    assert page.get_by_text("Not attempted yet").count() == 1, "the page is not solved"
    assert _attempts(server) == before, "a preview records nothing"
    box.scroll_into_view_if_needed()
    page.screenshot(path=OUTPUT / f"{EXERCISE}-instructor-preview.png", full_page=True)
