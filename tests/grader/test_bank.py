"""A bank of learners' answers (tests/grader/bank/answers.toml): every verdict right, and most
wrong answers told their specific misconception, on the default dataset and on names.txt."""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

import pytest

from grader import Grader
from grader.result import FAIL

BANK_FILE = Path(__file__).parent / "bank" / "answers.toml"
BANK = tomllib.loads(BANK_FILE.read_text())["answer"]
NAMED_GOAL = 0.9


def _id(answer: dict) -> str:
    return f"{answer['exercise']}: {answer['why']}"


def feedback_of(result) -> str:
    """Return the message and hint of the first failing check."""
    failed = next((c for c in result.checks if c.status == FAIL), None)
    return f"{failed.message} {failed.hint}" if failed else ""


def grade_bank(grader: Grader) -> dict[str, object]:
    return {_id(a): grader.grade(a["exercise"], a["code"]) for a in BANK}


@pytest.fixture(scope="module")
def graded(graded_bank):
    return {a["id"]: result for a, result in graded_bank(BANK_FILE)}


def test_the_bank_is_large_and_covers_every_lecture_exercise(catalog):
    wrong = [a for a in BANK if not a["solved"]]
    assert len(BANK) >= 100 and len(wrong) >= 60
    lecture = {e.id for e in catalog.exercises if e.scenario.slug == "01_mlp"}
    assert lecture <= {a["exercise"] for a in BANK}
    assert len({_id(a) for a in BANK}) == len(BANK), "every answer has its own `why`"
    assert all(a.get("diagnosis") for a in wrong), "every wrong answer names its misconception"


@pytest.mark.parametrize("answer", BANK, ids=_id)
def test_every_verdict_is_right(graded, answer):
    result = graded[_id(answer)]
    assert result.solved == answer["solved"], feedback_of(result)


def test_most_wrong_answers_are_told_their_misconception(graded, capsys):
    wrong = [a for a in BANK if not a["solved"]]
    named = [a for a in wrong if a["diagnosis"] in feedback_of(graded[_id(a)])]
    missed = [f"{_id(a)}: {feedback_of(graded[_id(a)])}" for a in wrong if a not in named]
    share = len(named) / len(wrong)
    with capsys.disabled():
        print(f"\nbank: {len(named)} of {len(wrong)} wrong answers named ({share:.0%})")
    assert share >= NAMED_GOAL, "\n".join(missed)


def test_every_wrong_answer_to_the_newer_scenarios_is_named(graded, catalog):
    newer = {e.id for e in catalog.exercises if e.scenario.slug in ("03_attention", "04_wavenet")}
    wrong = [a for a in BANK if not a["solved"] and a["exercise"] in newer]
    assert len(wrong) >= 30
    missed = [
        f"{_id(a)}: {feedback_of(graded[_id(a)])}"
        for a in wrong
        if a["diagnosis"] not in feedback_of(graded[_id(a)])
    ]
    assert not missed, "\n".join(missed)


def test_wrong_answers_fail_for_the_checks_their_mistake_belongs_to(graded):
    kinds = Counter(
        next(c.kind for c in graded[_id(a)].checks if c.status == FAIL)
        for a in BANK
        if not a["solved"]
    )
    # shape slips fail on form, value slips on the lecture batch, hard-coded sizes on sizes
    assert kinds["form"] >= 10 and kinds["lecture"] >= 30 and kinds["sizes"] >= 3, kinds


def test_every_verdict_is_right_on_names(names_dataset, catalog):
    results = grade_bank(Grader(names_dataset, catalog))
    wrong_verdicts = [
        f"{_id(a)}: {feedback_of(results[_id(a)])}"
        for a in BANK
        if results[_id(a)].solved != a["solved"]
    ]
    assert not wrong_verdicts, "\n".join(wrong_verdicts)
