"""A course made by `python -m grader new-course` is served as made (issue 25): its title, its
one exercise in the navigation, no training page, every page drawn, its own progress key.
tests/grader/cli/test_new_course.py validates and grades it."""

from __future__ import annotations

from app import services
from grader import discover
from grader.cli import main

from ..app_helpers import every_page_renders, main_test, nav_sections


def test_a_new_course_is_served_as_made(fake, tmp_path, monkeypatch):
    course = tmp_path / "my new course"
    assert main(["new-course", str(course), "--title", "Tanh by hand"]) == 0
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(course))
    fake.catalog = discover(course)  # the fake grader describes this course's exercise
    at = main_test().run()
    assert not at.exception and at.title[0].value == "Tanh by hand"
    urls = [p.url_path for group in nav_sections().values() for p in group]
    assert urls == ["", "progress", "instructor", "dhpre"], "no training page, no problems"
    every_page_renders()
    assert services.store().course == "my-new-course"
    assert services.catalog().errors == ()
