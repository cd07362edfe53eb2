"""The held-out bank (tests/grader/bank/heldout.toml): answers no detector was tuned on. Every
verdict right, and the mistake named for nine wrong answers in ten, with the share printed per
kind. An answer counts as named when its feedback holds one phrase of every group of `names`
and none of `avoid`."""

from __future__ import annotations

import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

from grader.result import FAIL

BANK_FILE = Path(__file__).parent / "bank" / "heldout.toml"
BANK = tomllib.loads(BANK_FILE.read_text())["answer"]
NAMED_GOAL = 0.9
KINDS = ("local derivative", "indexing", "fused", "products", "errors", "wording")


def _id(answer: dict) -> str:
    return f"{answer['exercise']}: {answer['why']}"


def feedback_of(result) -> str:
    """Return the message and hint of the first failing check."""
    failed = next((c for c in result.checks if c.status == FAIL), None)
    return f"{failed.message} {failed.hint}" if failed else ""


def is_named(answer: dict, said: str) -> bool:
    """Return whether `said` holds a phrase of every group of `names` and none of `avoid`."""
    said = said.lower()
    found = all(any(p.lower() in said for p in group) for group in answer["names"])
    return found and not any(p.lower() in said for p in answer.get("avoid", []))


@pytest.fixture(scope="module")
def graded(graded_bank):
    return {a["id"]: result for a, result in graded_bank(BANK_FILE)}


def test_the_bank_has_several_answers_of_every_kind():
    assert len({_id(a) for a in BANK}) == len(BANK), "every answer has its own `why`"
    wrong = [a for a in BANK if not a["solved"]]
    assert len(wrong) >= 40 and sum(a["solved"] for a in BANK) >= 5
    assert all(sum(a["kind"] == k for a in wrong) >= 5 for k in KINDS)
    assert all(a["names"] and all(a["names"]) for a in wrong)


@pytest.mark.parametrize("answer", BANK, ids=_id)
def test_every_verdict_is_right(graded, answer):
    result = graded[_id(answer)]
    assert result.solved == answer["solved"], feedback_of(result)


def test_nine_wrong_answers_in_ten_are_named(graded, capsys):
    named, total, missed = defaultdict(int), defaultdict(int), []
    for a in (a for a in BANK if not a["solved"]):
        said = feedback_of(graded[_id(a)])
        total[a["kind"]] += 1
        named[a["kind"]] += is_named(a, said)
        missed += [] if is_named(a, said) else [f"  not named: {_id(a)}: {said}"]
    share = sum(named.values()) / sum(total.values())
    with capsys.disabled():
        for kind in KINDS:
            print(f"\nheld-out bank, {kind}: {named[kind]} of {total[kind]} named", end="")
        print(f"\nheld-out bank: {sum(named.values())} of {sum(total.values())} ({share:.0%})")
        print("\n".join(missed))
    assert share >= NAMED_GOAL, "\n".join(missed)
