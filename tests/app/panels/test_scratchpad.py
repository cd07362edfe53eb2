"""The scratchpad on an exercise page, with the real grader: shapes shown, autograd refused,
the code kept across sessions."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from app.panels import scratchpad

from ..app_helpers import SOLVED, page_test, submit

KEY = "scratch:dcounts_sum_inv"


def open_scratch():
    """Render the exercise page and open its scratchpad."""
    return page_test("dcounts_sum_inv").run().toggle(key=f"{KEY}:open").set_value(True).run()


def run_scratch(code: str):
    at = open_scratch()
    at.text_area(key=f"{KEY}:code").input(code)
    return at.button(key=f"{KEY}:code:submit").click().run()


def test_the_scratchpad_shows_shapes_and_what_was_printed(app_env):
    at = run_scratch("x = counts * dprobs\nprint(x.sum(1, keepdim=True).shape)\n")
    assert not at.exception
    table = next(d.value for d in at.dataframe if "values" in d.value.columns)
    assert list(table["name"]) == ["x"] and list(table["shape"]) == ["(32, 27)"]
    assert any("torch.Size([32, 1])" in c.value for c in at.code)
    assert "not graded" in at.info[0].value


def test_the_scratchpad_refuses_autograd(app_env):
    at = run_scratch("y = probs.log().sum()\ny.backward()\n")
    assert not at.exception
    assert any("autograd" in e.value for e in at.error)


def test_the_scratch_code_survives_a_new_session(app_env):
    run_scratch("z = counts[:2]\n")
    again = open_scratch()
    assert again.text_area(key=f"{KEY}:code").value == "z = counts[:2]\n"


def test_the_scratchpad_is_closed_at_first_and_stays_open_across_a_graded_submission(fake):
    at = page_test("dcounts_sum_inv").run()
    assert not [t for t in at.text_area if t.key == f"{KEY}:code"], "closed at first"
    at.toggle(key=f"{KEY}:open").set_value(True).run()
    submit(at, f"{SOLVED}\n")
    assert not at.exception
    assert at.toggle(key=f"{KEY}:open").value, "still open after the graded submission"
    assert at.text_area(key=f"{KEY}:code") is not None
    assert at.button(key=f"{KEY}:code:submit").label == scratchpad.RUN_LABEL


LANGUAGE = Path(__file__).parents[2] / "grader" / "fixtures" / "language" / "exercises"


def test_the_lecture_names_its_lecture_batch(fake):
    lecture = page_test("dcounts_sum_inv").run()
    assert any("**Tensors in scope** (lecture batch)" in m.value for m in lecture.markdown)
    assert [t.label for t in lecture.toggle if t.key == f"{KEY}:open"] == [
        "Scratchpad: try code on the lecture batch (not graded)"
    ]


def test_a_course_that_is_not_the_lecture_names_its_main_batch(app_env, tmp_path, monkeypatch):
    """Issue 25: no lecture words on a course of its own (the lecture keeps its own, above)."""
    shutil.copytree(LANGUAGE, tmp_path / "course")
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(tmp_path / "course"))
    at = page_test("dhr").run()
    assert not at.exception
    assert any("**Tensors in scope** (main batch)" in m.value for m in at.markdown)
    labels = [t.label for t in at.toggle if t.key == "scratch:dhr:open"]
    assert labels == ["Scratchpad: try code on the main batch (not graded)"]
    assert not [m.value for m in at.markdown if "lecture" in m.value.lower()]


def test_the_caption_names_tensors_in_scope_never_the_gradient_to_write(fake):
    at = page_test("dprobs").run().toggle(key="scratch:dprobs:open").set_value(True).run()
    [caption] = [c.value for c in at.caption if c.value.startswith("Runs in the sandbox")]
    named = re.findall(r"`print\((\w+)", caption)
    assert named == ["probs", "dlogprobs"], caption  # a forward value, an upstream gradient
    assert "dprobs" not in re.findall(r"\w+", caption), "the answer is not in scope"
