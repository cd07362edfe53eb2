"""A course's course.toml: defaults without one, its keys, and what is refused."""

from __future__ import annotations

import shutil

import pytest

from grader.course.course import Course, load_course, read_course
from grader.course.exercises import EXERCISES_DIR, discover
from grader.course.schema import SchemaError


def test_a_folder_without_course_toml_gets_the_defaults(tmp_path):
    assert load_course(tmp_path) == Course(id=tmp_path.name)
    assert Course().title == "Backprop Ninja" and Course().training


def test_the_shipped_course_is_the_lecture(tmp_path):
    course = discover().course
    assert course.title == "Backprop Ninja" and course.training
    assert course.id == "default", "the id its learners' progress was kept under before courses"
    assert "Becoming a Backprop Ninja" in course.intro


def test_every_key_is_read(tmp_path):
    text = 'title = "Attention"\nintro = """\nOne *head*.\n"""\ntraining = false\nid = "att-1"\n'
    (tmp_path / "course.toml").write_text(text)
    assert load_course(tmp_path) == Course("Attention", "One *head*.", False, id="att-1")


@pytest.mark.parametrize(
    "text, where, problem",
    [
        (
            'colour = "red"\n',
            "course.toml: colour",
            "unknown key (known keys: deadlines, grading, id, intro, language, points, practice, ",
        ),
        ("training = 1\n", "course.toml: training", "must be true or false, got int"),
        ('title = "  "\n', "course.toml: title", "must not be empty"),
        ("title = \n", "course.toml", "is not valid TOML"),
        ('id = "a b"\n', "course.toml: id", "must be letters, digits"),
        ('solutions = "/srv/answers"\n', "course.toml: solutions", "inside the course folder"),
        ("[[practice]]\nrule = 'x'\n", "course.toml: [[practice]] 1: misconceptions", "missing"),
        ("[points]\ndh = 0\n", "course.toml: points.dh", "must be a number above 0, got 0"),
        ("[points]\ndh = true\n", "course.toml: points.dh", "must be a number above 0"),
        ("points = 3\n", "course.toml: points", "must be"),
        ("[deadlines]\ndh = 2026-12-01T23:59:00\n", "course.toml: deadlines.dh", "an offset"),
        ("[deadlines]\ndh = 2026-12-01\n", "course.toml: deadlines.dh", "an offset"),
    ],
)
def test_a_bad_course_names_file_and_key(tmp_path, text, where, problem):
    (tmp_path / "course.toml").write_text(text)
    with pytest.raises(SchemaError) as caught:
        load_course(tmp_path)
    assert caught.value.where == str(tmp_path / where) and problem in caught.value.problem


def test_discover_refuses_a_bad_key_and_keeps_the_rest_of_the_course(tmp_path):
    shutil.copytree(EXERCISES_DIR / "02_layernorm", tmp_path / "02_layernorm")
    (tmp_path / "course.toml").write_text('title = "Mine"\nfavourite = 3\nintro = "Hi."\n')
    catalog = discover(tmp_path)
    assert (catalog.course.title, catalog.course.intro) == ("Mine", "Hi.")
    (error,) = catalog.errors
    assert error.where == f"{tmp_path / 'course.toml'}: favourite"
    assert [e.id for e in catalog.exercises] == ["dxhat", "drstd", "dx_ln_fused"]


def test_each_bad_key_and_practice_block_is_refused_alone(tmp_path):
    text = (
        'title = "Mine"\ntraining = "no"\ncolour = 1\n'
        '[[practice]]\nmisconceptions = ["bessel"]\nexercises = ["dh"]\nrule = "n-1"\n'
        '[[practice]]\nmisconceptions = ["no_such_idea"]\nexercises = ["dh"]\nrule = "x"\n'
    )
    (tmp_path / "course.toml").write_text(text)
    course, problems = read_course(tmp_path)
    assert course.title == "Mine" and course.training, "a bad `training` keeps the default"
    assert [p.rule for p in course.practice] == ["n-1"]
    where = str(tmp_path / "course.toml")
    assert sorted(p.where for p in problems) == [
        f"{where}: [[practice]] 2: misconceptions",
        f"{where}: colour",
        f"{where}: training",
    ]


def test_an_exercise_version_changes_with_its_file_or_its_scenario_and_nothing_else(tmp_path):
    shutil.copytree(EXERCISES_DIR / "02_layernorm", tmp_path / "02_layernorm")
    before = {e.id: e.version for e in discover(tmp_path).exercises}
    assert len(set(before.values())) == len(before), "each exercise has its own version"
    exercise = tmp_path / "02_layernorm" / "01_dxhat.toml"
    exercise.write_text(exercise.read_text() + "\n# fixed a hint\n")
    after = {e.id: e.version for e in discover(tmp_path).exercises}
    assert after["dxhat"] != before["dxhat"] and after["drstd"] == before["drstd"]
    scenario = tmp_path / "02_layernorm" / "scenario.toml"
    scenario.write_text(scenario.read_text() + "\n# fixed a comment\n")
    again = {e.id: e.version for e in discover(tmp_path).exercises}
    assert all(again[k] != after[k] for k in again), "a scenario fix is a new version of all"


def test_points_weigh_items_and_an_unknown_one_is_refused_alone(tmp_path):
    shutil.copytree(EXERCISES_DIR / "02_layernorm", tmp_path / "02_layernorm")
    text = "[points]\ndxhat = 2\ndrstd = 0.5\nnope = 3\n"
    (tmp_path / "course.toml").write_text(text)
    catalog = discover(tmp_path)
    (error,) = catalog.errors
    assert error.where == f"{tmp_path / 'course.toml'}: points.nope"
    assert "not an exercise id" in error.problem
    course = catalog.course
    assert [course.points_of(i) for i in ("dxhat", "drstd", "dx_ln_fused")] == [2, 0.5, 1]


def test_deadlines_are_read_with_their_offset(tmp_path):
    shutil.copytree(EXERCISES_DIR / "02_layernorm", tmp_path / "02_layernorm")
    text = "[deadlines]\ndxhat = 2026-12-01T23:59:00+01:00\nnope = 2026-12-01T00:00:00Z\n"
    (tmp_path / "course.toml").write_text(text)
    catalog = discover(tmp_path)
    assert [e.where for e in catalog.errors] == [f"{tmp_path / 'course.toml'}: deadlines.nope"]
    due = catalog.course.deadline_of("dxhat")
    assert due.isoformat() == "2026-12-01T23:59:00+01:00"
    assert catalog.course.deadline_of("drstd") is None
