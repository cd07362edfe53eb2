"""Scenario checks that need it to run: shape comments, alt sizes, a raising line, given."""

from __future__ import annotations

import shutil

import pytest

from grader.course.exercises import EXERCISES_DIR, discover
from grader.proving.prover import validate
from grader.proving.scenariocheck import check_scenario, evaluate_shape, given_cuts


@pytest.fixture
def layernorm(tmp_path):
    folder = tmp_path / "02_layernorm"
    shutil.copytree(EXERCISES_DIR / "02_layernorm", folder)
    return folder


def _edit(folder, old: str, new: str) -> None:
    path = folder / "scenario.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def _findings(folder):
    (scenario,) = discover(folder.parent).scenarios
    return check_scenario(scenario)


def test_the_shipped_scenarios_are_sound(catalog):
    for scenario in catalog.scenarios:
        assert check_scenario(scenario) == (), scenario.slug
    for exercise in catalog.exercises:
        assert given_cuts(exercise) == [], exercise.id


def test_a_wrong_shape_comment_is_named_with_its_line(layernorm):
    _edit(layernorm, "var = (xc**2).mean(-1, keepdim=True)  # (n, 1)",
          "var = (xc**2).mean(-1, keepdim=True)  # (1, d)")  # fmt: skip
    ((where, problem),) = _findings(layernorm)[:1]
    assert where.endswith("scenario.toml:35: forward.code line 3"), (
        "the file's line, then the code's"
    )
    assert "says (1, d), which is (1, 24) with sizes, but the line makes (16, 1)" in problem


def test_alt_sizes_equal_to_sizes_are_refused(layernorm):
    _edit(layernorm, "n = 9\n", "n = 16\n")
    assert any(
        w.endswith("alt_sizes.n") and "equals sizes.n (16)" in p for w, p in _findings(layernorm)
    )


def test_a_line_that_raises_is_named_at_its_own_line(layernorm):
    _edit(layernorm, "xc = x - mean  # (n, d)", "xc = x - mean @ x  # (n, d)")
    ((where, problem),) = _findings(layernorm)
    assert where.endswith("scenario.toml:34: forward.code line 2")
    assert problem.startswith("raises with sizes: `xc = x - mean @ x` raised RuntimeError")


def test_a_given_that_leaves_a_path_uncut_is_refused(layernorm):
    path = layernorm / "01_dxhat.toml"
    text = path.read_text()
    path.write_text('given = ["xc"]\n' + text)
    catalog = discover(layernorm.parent)
    ((where, problem),) = given_cuts(catalog.get("dxhat"))
    assert where.endswith("01_dxhat.toml: given") and "`xhat` to `loss`" in problem
    count, findings = validate(layernorm)
    assert any(f.where.endswith("01_dxhat.toml: given") for f in findings)


@pytest.mark.parametrize(
    ("comment", "shape"),
    [("(n, d)", (16, 24)), ("(n*d,)", (384,)), ("()", ()), ("(1, d)", (1, 24)),
     ("(n, vocab)", None), ("(__import__('os'),)", None)],
)  # fmt: skip
def test_shape_comments_are_evaluated_safely(comment, shape):
    assert evaluate_shape(comment, {"n": 16, "d": 24}) == shape
