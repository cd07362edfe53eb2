"""A course widens the exercise language in its course.toml, validated like every other key."""

from __future__ import annotations

import ast

import pytest

from grader.course.course import read_course


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ('[language]\nattributes = ["_C"]\n', "a course can never add a private name"),
        ('[language]\nattributes = ["backward"]\n', "it can never be added"),
        ('[language]\nattributes = ["getattr"]\n', "it can never be added"),
        ('[language]\nattributes = ["masked_fil"]\n', "nearest: `masked_fill`"),
        ('[language]\nattributes = ["ops"]\n', "not an operation a course may add"),
        ('[language]\nimports = ["sympy"]\nattributes = []\n', "unknown key"),
        ('[language]\nnames = ["open"]\nattributes = []\n', "unknown key"),
        ('[language]\nattributes = ["os.path"]\n', "is not an attribute name"),
        ("language = 3\n", "must be a table"),
    ],
)
def test_a_bad_addition_is_refused_and_names_its_key(tmp_path, toml, problem):
    (tmp_path / "course.toml").write_text(toml)
    course, problems = read_course(tmp_path)
    assert course.language.added == () and len(problems) == 1
    assert "course.toml: language" in str(problems[0]) and problem in str(problems[0])


def test_a_declared_addition_widens_only_that_course(tmp_path):
    (tmp_path / "course.toml").write_text('[language]\nattributes = ["masked_fill", "cummax"]\n')
    course, problems = read_course(tmp_path)
    tree = ast.parse("datt = dscores.masked_fill(future, 0.0)")
    assert not problems and course.language.added == ("masked_fill", "cummax")
    assert course.language.refusal(tree) is None
    (tmp_path / "course.toml").write_text('title = "Plain"\n')
    assert read_course(tmp_path)[0].language.refusal(tree).construct == ".masked_fill"


def test_the_shipped_course_adds_masked_fill_for_its_attention_head(catalog):
    assert catalog.course.language.added == ("masked_fill",)
