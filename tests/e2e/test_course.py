"""In a real browser: an exercises folder of its own is a course, with its own title and pages."""

from __future__ import annotations

import shutil

import pytest

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
    running = start_server(data, OUTPUT / "course-server.log", exercises=root)
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
    assert "Backprop Ninja" not in page.locator("body").inner_text()
