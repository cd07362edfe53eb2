"""The scenarios beyond the lecture: attention and WaveNet, each proved by a whole pass."""

from __future__ import annotations

import pytest

from grader import Grader
from grader.course.exercises import SOLUTIONS_DIR as SOLUTIONS

SHIPPED = ["03_attention", "04_wavenet"]


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog)


@pytest.mark.parametrize("slug", SHIPPED)
def test_the_scenario_has_five_exercises_and_a_whole_pass(catalog, slug):
    scenario = catalog.scenario(slug)
    exercises = [e for e in catalog.exercises if e.scenario.slug == slug]
    assert len(exercises) >= 5
    assert len(scenario.whole_pass) >= 5
    assert not [e for e in catalog.errors if slug in str(e)]


@pytest.mark.parametrize("slug", SHIPPED)
def test_the_whole_pass_solution_matches_autograd(grader, slug):
    code = (SOLUTIONS / slug / "whole_pass.py").read_text(encoding="utf-8")
    result = grader.grade_pass(code, slug)
    assert result.solved, result.message
    assert [row.name for row in result.rows][-1] == "d" + grader.catalog.scenario(slug).whole_pass[
        -1
    ]


@pytest.mark.parametrize("slug", SHIPPED)
def test_a_wrong_line_in_the_whole_pass_is_named(grader, slug):
    code = (SOLUTIONS / slug / "whole_pass.py").read_text(encoding="utf-8")
    lines = code.splitlines()
    first = lines[0].split("=")[0].strip()
    broken = "\n".join([lines[0] + " * 2", *lines[1:]])
    result = grader.grade_pass(broken, slug)
    assert not result.solved
    assert f"`{first}`" in result.message
