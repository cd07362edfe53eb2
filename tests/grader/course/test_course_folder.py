"""A course is one folder: its scenarios, exercises, course.toml and its own `solutions/`, unless
its course.toml names where its answers live (the shipped course's: the project's `solutions/`)."""

from __future__ import annotations

import shutil

import pytest

from grader.course.exercises import EXERCISES_DIR, ROOT, SOLUTIONS_DIR, discover


def _course(parent, name: str, answers: bool = True):
    """Copy the LayerNorm scenario into a course folder, with its answers inside if asked."""
    course = parent / name
    shutil.copytree(EXERCISES_DIR / "02_layernorm", course / "02_layernorm")
    if answers:
        shutil.copytree(SOLUTIONS_DIR / "02_layernorm", course / "solutions" / "02_layernorm")
    return course


def test_the_shipped_course_keeps_its_answers_in_the_top_level_solutions(catalog):
    assert SOLUTIONS_DIR == ROOT / "solutions" and catalog.course.solutions == "../solutions"
    assert not (EXERCISES_DIR / "solutions").exists()
    for exercise in catalog.exercises:
        assert exercise.solution_path.is_relative_to(SOLUTIONS_DIR), exercise.id
        assert exercise.solution_path.is_file(), exercise.id


def test_a_course_reads_its_answers_from_its_own_folder(tmp_path):
    course = _course(tmp_path, "layernorm")
    catalog = discover(course)
    assert catalog.errors == (), "the solutions folder is not taken for a scenario"
    dxhat = catalog.get("dxhat")
    assert dxhat.solution_path == course / "solutions" / "02_layernorm" / "dxhat.py"
    assert dxhat.solution() == (SOLUTIONS_DIR / "02_layernorm" / "dxhat.py").read_text()


def test_two_courses_in_one_parent_never_share_answers(tmp_path):
    _course(tmp_path, "first")
    second = _course(tmp_path, "second", answers=False)
    shutil.copytree(SOLUTIONS_DIR / "02_layernorm", tmp_path / "solutions" / "02_layernorm")
    dxhat = discover(second).get("dxhat")
    assert dxhat.solution_path == second / "solutions" / "02_layernorm" / "dxhat.py"
    assert not dxhat.solution_path.exists(), "neither the sibling's nor the parent's answers"


@pytest.mark.parametrize("named", ["answers", "../shared"])
def test_course_toml_may_name_where_the_answers_live(tmp_path, named):
    course = _course(tmp_path, "layernorm", answers=False)
    (course / "course.toml").write_text(f'solutions = "{named}"\n')
    answers = (course / named).resolve()
    shutil.copytree(SOLUTIONS_DIR / "02_layernorm", answers / "02_layernorm")
    catalog = discover(course)
    assert catalog.errors == (), "a named answers folder is not taken for a scenario"
    dxhat = catalog.get("dxhat")
    assert dxhat.solution_path.resolve() == answers / "02_layernorm" / "dxhat.py"
    assert dxhat.solution() == (SOLUTIONS_DIR / "02_layernorm" / "dxhat.py").read_text()


@pytest.mark.parametrize("named", ["/etc", "../../elsewhere", "a/../../b", "..", ".", "~"])
def test_answers_named_outside_the_course_or_beside_it_are_refused(tmp_path, named):
    course = _course(tmp_path, "layernorm")
    (course / "course.toml").write_text(f'solutions = "{named}"\n')
    catalog = discover(course)
    [problem] = catalog.errors
    assert problem.where.endswith("course.toml: solutions") and "beside it" in problem.problem
    assert catalog.get("dxhat").solution_path == course / "solutions" / "02_layernorm" / "dxhat.py"
