"""A course is one folder: its scenarios, exercises, course.toml and its own `solutions/`."""

from __future__ import annotations

import shutil

from grader.course.exercises import EXERCISES_DIR, SOLUTIONS_DIR, discover


def _course(parent, name: str, answers: bool = True):
    """Copy the LayerNorm scenario into a course folder, with its answers inside if asked."""
    course = parent / name
    shutil.copytree(EXERCISES_DIR / "02_layernorm", course / "02_layernorm")
    if answers:
        shutil.copytree(SOLUTIONS_DIR / "02_layernorm", course / "solutions" / "02_layernorm")
    return course


def test_the_shipped_course_keeps_every_answer_inside_its_folder(catalog):
    assert SOLUTIONS_DIR == EXERCISES_DIR / "solutions"
    for exercise in catalog.exercises:
        assert exercise.solution_path.is_relative_to(EXERCISES_DIR / "solutions"), exercise.id
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
