"""The five classes of issue 32, on every path learner code takes: refused before anything runs.

Each attack (attacks.py) hands in autograd's gradient, or the library's own differentiation, on
the code before the exercise language: there one answer, the whole pass's 26 gradients, a
notebook's four exercises and Exercise 4's section were all graded solved, and the scratchpad
ran them. Now each is refused by the language, with the construct and its line as fields, and
nothing runs. The same file runs again as an ordinary user (test_unprivileged.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import nbformat
import pytest

from grader import Grader, notebook
from grader.feedback import checkjson
from grader.training import Trainer, TrainSettings

from ..fixtures import lecture_notebook as lecture
from .attacks import ATTACKS, SECTION, WHOLE_PASS


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog)


def assert_refused(result) -> None:
    """Assert that a result was refused by the language before running, saying where."""
    assert not result.solved, "the attack's gradient was graded solved"
    assert not result.ran and result.failed_check == "rules", result
    assert result.refused_construct and result.refused_line, result


@pytest.mark.parametrize("name", ATTACKS)
def test_an_attack_on_one_answer_is_refused_before_it_runs(grader, name):
    exercise, code = ATTACKS[name]
    assert_refused(grader.grade(exercise, code))


@pytest.mark.parametrize("name", WHOLE_PASS)
def test_an_attack_on_the_whole_pass_is_refused_before_it_runs(grader, name):
    result = grader.grade_pass(WHOLE_PASS[name])
    assert not result.solved, "all 26 gradients of autograd were graded solved"
    assert not result.ran and result.refused_construct and result.refused_line, result


def test_an_attack_in_every_exercise_of_a_notebook_is_refused(grader, default_data, catalog):
    answers = {
        "exercise1": WHOLE_PASS["1-originals"],
        "exercise2": ATTACKS["4-library/decomposed-cross-entropy"][1],
        "exercise3": ATTACKS["4-library/decomposed-batchnorm"][1],
        "section": SECTION,
    }
    found = notebook.read(nbformat.writes(lecture.build(**answers)).encode(), "attack.ipynb")
    exercise4 = notebook.exercise4(default_data, grader.sandbox, catalog)
    result = notebook.grade(found, grader, exercise4)
    assert [p.status for p in result.parts] == ["not_solved"] * 4, result
    assert all(p.result.refused_construct for p in result.parts), result


def test_an_attack_in_exercise_4s_section_is_refused(grader, default_data, catalog, tmp_path):
    trainer = Trainer(default_data, tmp_path, catalog, grader.sandbox)
    check, job = trainer.train(SECTION, TrainSettings(steps=1000))
    assert not check.passed and job is None, "training started on autograd's gradients"
    assert not check.ran and check.refused_construct == "import pkgutil", check


def test_an_attack_in_the_scratchpad_is_refused(grader):
    result = grader.scratch("dhpreact", ATTACKS["2-exits/tls-exclusion-boxed-call"][1])
    assert not result.ok and not result.rows, "the scratchpad ran it"
    assert result.refused_construct == "import pkgutil" and result.refused_line == 1


def test_the_scratchpad_prints_a_tensor_and_its_slices(grader):
    result = grader.scratch("dprobs", "s = probs.sum(1)\nprint(s[:3])\nprint(f'{s.mean():.3f}')\n")
    assert result.ok, result.message
    printed = result.stdout.splitlines()
    assert printed[0].startswith("tensor([") and len(printed) == 2, result.stdout
    assert float(printed[1]) == pytest.approx(1.0, abs=1e-3)


def test_an_honest_answer_is_still_graded_after_the_refusals(grader, catalog):
    assert grader.grade("dhpreact", catalog.get("dhpreact").solution()).solved


def test_the_json_of_a_refusal_names_the_construct_and_its_line(grader):
    exercise, code = ATTACKS["4-library/decomposed-tanh"]
    payload = checkjson.exercise(
        grader.grade(exercise, code), checkjson.Subject("exercise", exercise)
    )
    schema = Path(__file__).resolve().parents[3] / "docs" / "check-json.schema.json"
    jsonschema.validate(payload, json.loads(schema.read_text()))
    assert (payload["refused_construct"], payload["refused_line"]) == ("import pkgutil", 1)
