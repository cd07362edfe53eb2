"""The instructor's preview (issue 25): any exercise seen as solved (the checks of the reference
answer, the why card, the answer) without solving it, marked as a preview and recorded nowhere;
learners never get it. tests/e2e/test_preview.py grades the preview for real in a browser."""

from __future__ import annotations

import time

import pytest

from app import services
from app.panels import preview
from grader import discover

from ..app_helpers import page_test, texts

EXERCISE = "dbndiff2"


def _switch(at):
    return [t for t in at.toggle if t.label == preview.SWITCH]


def _progress() -> tuple:
    store = services.store()
    return tuple(
        (store.work.attempts(p), store.work.statuses(p)) for p in store.learners.profiles()
    )


def test_the_instructor_sees_the_exercise_as_solved_once_switched_on(fake, instructor):
    exercise = discover().get(EXERCISE)
    at = page_test(EXERCISE).run()
    assert not at.exception and len(_switch(at)) == 1
    assert exercise.solution().strip() not in texts(at), "nothing shown before the switch"
    _switch(at)[0].set_value(True)
    at = at.run()
    assert not at.exception
    assert any(preview.MARK in i.value for i in at.info)
    assert exercise.solution().strip() in [c.value.strip() for c in at.code]
    assert "Why it is so" in texts(at) and exercise.explain.strip() in texts(at)
    assert fake.graded == [(EXERCISE, exercise.solution())], "the answer itself is graded"
    assert "**Not yet.**" in texts(at) or "**Solved.**" in texts(at)  # the grader's verdict


def test_the_preview_records_nothing_and_grades_once(fake, instructor):
    at = page_test(EXERCISE).run()
    before = _progress()
    _switch(at)[0].set_value(True)
    at = at.run()
    at = at.run()  # a rerun shows the same result without grading again
    assert not at.exception and len(fake.graded) == 1
    assert _progress() == before
    assert any("badge[" in m.value and "Not attempted yet" in m.value for m in at.markdown)


@pytest.mark.parametrize("setting", ["0", "no"])
def test_a_learner_never_gets_the_preview(fake, monkeypatch, setting):
    monkeypatch.setenv("NINJA_INSTRUCTOR", setting)
    exercise = discover().get(EXERCISE)
    at = page_test(EXERCISE).run()
    assert not at.exception and _switch(at) == []
    assert exercise.solution().strip() not in texts(at) and preview.MARK not in texts(at)
    assert fake.graded == []


def test_without_a_reference_answer_the_preview_says_so(fake, tmp_path, monkeypatch, instructor):
    import shutil

    from grader.course import EXERCISES_DIR, SOLUTIONS_DIR

    course = tmp_path / "course"
    shutil.copytree(EXERCISES_DIR, course)
    shutil.copytree(SOLUTIONS_DIR, tmp_path / "solutions")  # where course.toml says
    (tmp_path / "solutions" / "01_mlp" / f"{EXERCISE}.py").unlink()
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(course))
    at = page_test(EXERCISE).run()
    _switch(at)[0].set_value(True)
    at = at.run()
    assert not at.exception and preview.NO_SOLUTION in [w.value for w in at.warning]
    assert fake.graded == []


@pytest.mark.parametrize(("email", "offered"), [("ivy@uni.test", True), ("ada@uni.test", False)])
def test_in_the_classroom_only_a_signed_in_instructor_gets_it(fake, monkeypatch, email, offered):
    monkeypatch.setenv("NINJA_MODE", "classroom")
    monkeypatch.setenv("NINJA_INSTRUCTORS", "ivy@uni.test")
    at = page_test(EXERCISE)
    at.user = {"is_logged_in": True, "iss": "https://id.uni.test", "sub": email, "email": email}
    at.user |= {"iat": int(time.time()), "email_verified": True}  # as a real token has
    at = at.run()
    assert not at.exception and len(_switch(at)) == int(offered)
