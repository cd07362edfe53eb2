"""In a real browser: an exercises folder of its own is a course, with its own title and pages,
served here by its instructor (`NINJA_INSTRUCTOR=1`): the Dashboard is listed and any exercise
can be previewed as solved (issue 25) without recording anything. The shared server runs the
local mode's default, a learner's copy, where neither is offered (test_path.py checks it)."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3

import pytest
from playwright.sync_api import expect

from app.panels import preview
from grader.course.exercises import EXERCISES_DIR, SOLUTIONS_DIR

from .e2e_helpers import OUTPUT, open_page, start_server, stop_server

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def course_server(tmp_path_factory):
    """Yield the app serving a LayerNorm-only course folder."""
    root = tmp_path_factory.mktemp("course") / "exercises"
    shutil.copytree(EXERCISES_DIR / "02_layernorm", root / "02_layernorm")
    answers = SOLUTIONS_DIR / "02_layernorm"  # a course of its own keeps its answers inside it
    shutil.copytree(answers, root / "solutions" / "02_layernorm")
    (root / "course.toml").write_text(
        'title = "LayerNorm by hand"\nintro = "Three gradients of **one** normalisation."\n'
    )
    OUTPUT.mkdir(exist_ok=True)
    data = tmp_path_factory.mktemp("course-var") / "var"
    settings = {"NINJA_INSTRUCTOR": "1"}
    running = start_server(data, OUTPUT / "course-server.log", exercises=root, settings=settings)
    yield running
    stop_server(running.process)


def test_the_course_names_the_tab_and_home_and_has_no_training_page(course_server, page):
    open_page(page, course_server.url)
    page.get_by_text("Three gradients of", exact=False).wait_for(timeout=TIMEOUT_MS)
    assert page.locator("h1").first.inner_text() == "LayerNorm by hand"
    page.locator(".stGraphVizChart svg").first.wait_for(timeout=TIMEOUT_MS)
    page.get_by_role("button", name="Start with the first exercise: dxhat").wait_for(
        timeout=TIMEOUT_MS
    )
    page.screenshot(path=OUTPUT / "course-home.png", full_page=True)
    assert "LayerNorm by hand" in page.title()
    sidebar = page.locator("[data-testid='stSidebarNav']").inner_text()
    assert "Train the MLP" not in sidebar and "Progress" in sidebar
    assert "Dashboard" in sidebar, "the instructor's, switched on by NINJA_INSTRUCTOR=1"
    assert "Backprop Ninja" not in page.locator("body").inner_text()


PREVIEWED = "dxhat"


def _attempts(server) -> int:
    """Return how many attempts at PREVIEWED the server's database holds (0 before the
    database exists: opening it here must not create it)."""
    path = server.data_dir / "progress.sqlite3"
    if not path.exists():
        return 0
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        query = "SELECT COUNT(*) FROM attempts WHERE exercise_id = ?"
        return db.execute(query, (PREVIEWED,)).fetchone()[0]


def test_an_instructor_previews_an_exercise_as_solved(course_server, page):
    before = _attempts(course_server)
    open_page(page, f"{course_server.url}/{PREVIEWED}")
    page.get_by_text("Not attempted yet").first.wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text("Instructor preview").count() == 0, "off until switched on"
    page.get_by_text(preview.SWITCH).click()
    box = page.locator(f".st-key-instructor-preview-{PREVIEWED}")
    box.get_by_text("Solved.", exact=False).first.wait_for(timeout=TIMEOUT_MS)
    expect(box).to_contain_text("gamma * dy", timeout=TIMEOUT_MS)  # the reference answer
    shown = box.inner_text()
    assert "Instructor preview" in shown and "Why it is so" in shown
    assert page.get_by_text("Not attempted yet").count() == 1, "the page is not solved"
    assert _attempts(course_server) == before, "a preview records nothing"
    box.scroll_into_view_if_needed()
    page.screenshot(path=OUTPUT / f"{PREVIEWED}-instructor-preview.png", full_page=True)
