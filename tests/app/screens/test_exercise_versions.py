"""An attempt records the course and the version of the exercise it answered; the page says
when the last attempt answered an earlier version."""

from __future__ import annotations

import shutil
from dataclasses import replace

from app import services
from app.screens.exercise import EARLIER_VERSION, REGRADED
from app.storage import REGRADE, Attempt
from grader.course.exercises import EXERCISES_DIR, SOLUTIONS_DIR

from ..app_helpers import SOLVED, page_test, submit


def _captions(at) -> list[str]:
    return [c.value for c in at.caption]


def test_a_submission_records_the_served_course_and_exercise_version(fake):
    at = submit(page_test("dlogprobs").run(), f"{SOLVED}\n")
    assert not at.exception
    store = services.store()
    (attempt,) = store.work.attempts(store.learners.profiles()[0], "dlogprobs")
    expected = services.catalog().get("dlogprobs").version
    assert attempt.version == expected and len(expected) == 12
    assert store.course == "default"
    assert EARLIER_VERSION not in _captions(page_test("dlogprobs").run())


def test_the_page_says_the_last_attempt_answered_an_earlier_version(fake, tmp_path, monkeypatch):
    root = tmp_path / "exercises"
    shutil.copytree(EXERCISES_DIR, root)
    shutil.copytree(SOLUTIONS_DIR, tmp_path / "solutions")  # where course.toml says
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(root))
    submit(page_test("dlogprobs").run(), f"{SOLVED}\n")
    path = root / "01_mlp" / "01_dlogprobs.toml"
    path.write_text(path.read_text() + "\n# a hint reworded\n")
    assert EARLIER_VERSION in _captions(page_test("dlogprobs").run())


def test_a_course_of_its_own_keeps_its_own_progress(fake, tmp_path, monkeypatch):
    store = services.store()
    me = (
        store.learners.profiles()[0]
        if store.learners.profiles()
        else store.learners.add_profile("ada")
    )
    store.work.record_attempt(me, Attempt("dlogprobs", "x", True, "ok", 0.1, 1.0, "default"))
    root = tmp_path / "course"
    shutil.copytree(EXERCISES_DIR, root)
    shutil.copytree(SOLUTIONS_DIR, tmp_path / "solutions")  # where course.toml says
    text = (root / "course.toml").read_text().replace('id = "default"', 'id = "again"')
    (root / "course.toml").write_text(text)
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(root))
    other = services.store()
    assert other.course == "again" and other.work.attempts(me) == []


def test_the_page_says_a_regrade_took_the_credit_away(fake):
    """A fix graded the stored answer again (`python -m app.regrade --apply`): the page says
    so, and what changed, instead of a solved exercise silently turning unsolved."""
    store = services.store()
    page_test("dlogprobs").run()  # creates the profile
    me = store.learners.profiles()[0]
    own = Attempt("dlogprobs", "x", True, "ok", 0.1, 1.0, "default", 1.7e9)
    store.work.record_attempt(me, own)
    assert REGRADED not in " ".join(_captions(page_test("dlogprobs").run()))
    store.work.record_attempt(me, replace(own, solved=False, summary="off", origin=REGRADE))
    said = " ".join(_captions(page_test("dlogprobs").run()))
    assert f"{REGRADED} It was solved before; it is not solved now." in said
    assert "Your last attempt (1 so far): not solved yet." in said, "a regrade is not a try"
