"""A course's course.toml: defaults without one, its keys, and what is refused."""

from __future__ import annotations

import shutil

import pytest

from grader.course.course import Course, load_course
from grader.course.exercises import EXERCISES_DIR, SOLUTIONS_DIR, discover
from grader.course.schema import SchemaError


def test_a_folder_without_course_toml_gets_the_defaults(tmp_path):
    assert load_course(tmp_path) == Course()
    assert Course().title == "Backprop Ninja" and Course().training


def test_the_shipped_course_is_the_lecture(tmp_path):
    course = discover().course
    assert course.title == "Backprop Ninja" and course.training
    assert "Becoming a Backprop Ninja" in course.intro


def test_every_key_is_read(tmp_path):
    text = 'title = "Attention"\nintro = """\nOne *head*.\n"""\ntraining = false\n'
    (tmp_path / "course.toml").write_text(text)
    assert load_course(tmp_path) == Course("Attention", "One *head*.", False)


@pytest.mark.parametrize(
    "text, where, problem",
    [
        (
            'colour = "red"\n',
            "course.toml: colour",
            "unknown key (known keys: intro, practice, title, ",
        ),
        ("training = 1\n", "course.toml: training", "must be true or false, got int"),
        ('title = "  "\n', "course.toml: title", "must not be empty"),
        ("title = \n", "course.toml", "is not valid TOML"),
    ],
)
def test_a_bad_course_names_file_and_key(tmp_path, text, where, problem):
    (tmp_path / "course.toml").write_text(text)
    with pytest.raises(SchemaError) as caught:
        load_course(tmp_path)
    assert caught.value.where == str(tmp_path / where) and problem in caught.value.problem


def test_discover_reports_a_bad_course_and_serves_with_the_defaults(tmp_path):
    shutil.copytree(EXERCISES_DIR / "02_layernorm", tmp_path / "02_layernorm")
    (tmp_path / "course.toml").write_text('title = "Mine"\nfavourite = 3\n')
    catalog = discover(tmp_path)
    assert catalog.course == Course()
    (error,) = catalog.errors
    assert error.where == f"{tmp_path / 'course.toml'}: favourite"
    assert [e.id for e in catalog.exercises] == ["dxhat", "drstd", "dx_ln_fused"]


def test_a_course_keeps_its_answers_beside_it_else_uses_the_projects(tmp_path):
    shutil.copytree(EXERCISES_DIR / "02_layernorm", tmp_path / "course" / "02_layernorm")
    first = discover(tmp_path / "course").exercises[0]
    assert first.solution_path == SOLUTIONS_DIR / "02_layernorm" / "dxhat.py"
    (tmp_path / "solutions" / "02_layernorm").mkdir(parents=True)
    assert first.solution_path == tmp_path / "solutions" / "02_layernorm" / "dxhat.py"
