"""What an exercise page teaches: the lecture's chapter linked, the why card only after a solve,
the derivation of the fused exercises opened one step at a time."""

from __future__ import annotations

import pytest

from grader.course.lecture import VIDEO

from ..app_helpers import SOLVED, VALUES, page_test, submit, texts

HEADING = "## :material/school: Why it is so"


def _card(at) -> str:
    """Return the why card's text, or "" when the page has none."""
    values = [m.value for m in at.markdown]
    return values[values.index(HEADING) + 1] if HEADING in values else ""


@pytest.mark.parametrize(
    ("exercise", "seconds", "chapter"),
    [
        ("dlogprobs", 781, "0:13:01, exercise 1"),
        ("dcounts", 1816, "about 0:30:16"),
        ("dbnvar", 3852, "about 1:04:12"),
        ("dlogits_fused", 5191, "1:26:31, exercise 2"),
        ("dhprebn_fused", 5797, "1:36:37, exercise 3"),
    ],
)
def test_the_page_links_the_chapter_of_the_lecture_that_teaches_it(
    fake, exercise, seconds, chapter
):
    at = page_test(exercise).run()
    assert not at.exception
    link = f"]({VIDEO}&t={seconds})"
    (line,) = [m.value for m in at.markdown if link in m.value]
    assert f"[{chapter}" in line


def test_an_exercise_outside_the_lecture_has_no_link(fake):
    at = page_test("dxhat").run()
    assert "Taught in the lecture" not in texts(at)


def test_the_why_card_appears_after_a_solve_and_not_before(fake):
    at = page_test("db1").run()
    assert _card(at) == "" and "Solve it to open its why card" in texts(at)
    at = submit(at, f"{VALUES}\n")
    assert _card(at) == "", "a wrong answer opens no why card"
    at = submit(at, f"{SOLVED}\n")
    assert not at.exception
    assert "batchnorm" in _card(at) and "**The rule.**" in _card(at)
    assert "Solve it to open its why card" not in texts(at)


def test_the_why_card_stays_once_solved(fake):
    submit(page_test("dC").run(), f"{SOLVED}\n")
    again = page_test("dC").run()
    assert "index_add_" in _card(again)


def test_the_derivation_opens_one_step_at_a_time(fake):
    at = page_test("dhprebn_fused").run()
    assert "**Step 1.**" not in texts(at)
    at = at.button(key="derivation:dhprebn_fused:next").click().run()
    assert "**Step 1.** Fix one column" in texts(at) and "**Step 2.**" not in texts(at)
    at = at.button(key="derivation:dhprebn_fused:next").click().run()
    assert "**Step 2.**" in texts(at) and "**Step 3.**" not in texts(at)
    assert at.button(key="derivation:dhprebn_fused:next").label == "Show step 3 of 7"


def test_the_last_step_closes_the_derivation(fake):
    at = page_test("dlogits_fused").run()
    for _ in range(6):
        at = at.button(key="derivation:dlogits_fused:next").click().run()
    assert "**Step 6.** Scale by the $\\frac{1}{n}$ of the mean" in texts(at), "LaTeX"
    assert not [b for b in at.button if b.key == "derivation:dlogits_fused:next"]


def test_step_by_step_exercises_only(fake):
    at = page_test("dcounts").run()
    assert not [b for b in at.button if (b.key or "").startswith("derivation:")]


def test_the_training_page_links_the_chapter_of_exercise_4(app_env, monkeypatch):
    from app import services

    from ..training_helpers import FakeTrainer

    monkeypatch.setattr(services, "trainer", lambda source: FakeTrainer())
    at = page_test(page="training").run()
    assert not at.exception
    link = f"[1:50:02, exercise 4: putting it all together]({VIDEO}&t=6602)"
    assert any(link in m.value for m in at.markdown)
