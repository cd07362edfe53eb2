"""`validate` tells the truth: every scenario proved, only the scope asked, answers inside."""

from __future__ import annotations

import shutil

import pytest

from grader.course.exercises import EXERCISES_DIR, SOLUTIONS_DIR, discover
from grader.proving.prompts import prompt_findings
from grader.proving.prover import validate

pytestmark = pytest.mark.slow  # each validate grades answers in the sandbox


@pytest.fixture
def course(tmp_path):
    """Return a course folder: LayerNorm with its answers, and an attention scenario with none
    of its exercises yet."""
    course = tmp_path / "my course"
    shutil.copytree(EXERCISES_DIR / "02_layernorm", course / "02_layernorm")
    shutil.copytree(SOLUTIONS_DIR / "02_layernorm", course / "solutions" / "02_layernorm")
    (course / "03_attention").mkdir()
    shutil.copy(EXERCISES_DIR / "03_attention" / "scenario.toml", course / "03_attention")
    return course


def _edit(path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def _wheres(findings) -> list[str]:
    return [f.where for f in findings]


def test_a_scenario_without_exercises_is_proved_too(course):
    scenario = course / "03_attention" / "scenario.toml"
    _edit(scenario, "att = q @ k.transpose(-2, -1)", "att = q @ k")  # (B,T,hs) @ (B,T,hs)
    count, findings = validate(course)
    assert count == 3, "the LayerNorm exercises"
    assert f"{scenario}:44: forward.code line 4" in _wheres(findings), "file line, code line"
    assert any("raises with sizes" in f.problem for f in findings)


def test_a_scenario_folder_reports_only_itself(course):
    bad = course / "02_layernorm" / "01_dxhat.toml"
    _edit(bad, "title =", 'level = "easy"\ntitle =')
    (course / "03_attention" / "scenario.toml").write_text("title = \n")
    count, findings = validate(course / "03_attention")
    assert count == 0
    assert _wheres(findings) == [str(course / "03_attention" / "scenario.toml")]
    count, findings = validate(course / "02_layernorm" / "02_drstd.toml")
    assert (count, findings) == (1, []), "another file's problem is not this file's"
    count, findings = validate(course)
    assert f"{bad}: level" in _wheres(findings) and len(findings) == 2


def test_a_missing_answer_says_where_it_belongs_and_no_other_course_answers(course):
    (course / "solutions" / "02_layernorm" / "drstd.py").unlink()
    count, findings = validate(course / "02_layernorm")
    ((where, problem),) = [(f.where, f.problem) for f in findings]
    assert where == f"{course / '02_layernorm' / '02_drstd.toml'}: solution"
    assert "its reference answer is missing: write `drstd` = ... in" in problem
    assert str(course / "solutions" / "02_layernorm" / "drstd.py") in problem


def test_a_prompt_that_shows_another_line_than_the_scenarios_is_named(course):
    exercise = course / "02_layernorm" / "01_dxhat.toml"
    _edit(exercise, "y = gamma * xhat + beta  # (n, d)", "y = gamma * xhat  # (n, d)")
    count, findings = validate(exercise)
    assert count == 1 and _wheres(findings) == [f"{exercise}: prompt"]
    assert findings[0].problem == (
        "shows `y = gamma * xhat`, but the scenario computes `y = gamma * xhat + beta`"
    )
    _edit(exercise, "y = gamma * xhat  # (n, d)", "y = gamma * xhat + beta  # (d, n)")
    (finding,) = prompt_findings(discover(course).get("dxhat"))  # the same check, no grading
    assert finding[1] == "shows `y` as (d, n), but the scenario's shape comment is (n, d)"
