"""The bank of issue 22's kinds (tests/grader/bank/kinds.toml): every verdict right, and the
mistake named for most wrong answers of each kind, with the share printed per kind."""

from __future__ import annotations

import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

from grader.result import FAIL

BANK_FILE = Path(__file__).parent / "bank" / "kinds.toml"
BANK = tomllib.loads(BANK_FILE.read_text())["answer"]
NAMED_GOAL = 0.9
KINDS = ("local derivative", "indexing", "fused", "products", "errors", "wording")
HELD_OUT = "held out"  # written after the detectors, not tuned on: printed, not asserted


def _id(answer: dict) -> str:
    return f"{answer['exercise']}: {answer['why']}"


def feedback_of(result) -> str:
    """Return the message and hint of the first failing check."""
    failed = next((c for c in result.checks if c.status == FAIL), None)
    return f"{failed.message} {failed.hint}" if failed else ""


@pytest.fixture(scope="module")
def graded(graded_bank):
    return {a["id"]: result for a, result in graded_bank(BANK_FILE)}


def test_the_bank_has_every_kind_and_right_answers_too():
    assert len({_id(a) for a in BANK}) == len(BANK), "every answer has its own `why`"
    counts = {k: sum(a["kind"] == k and not a["solved"] for a in BANK) for k in KINDS}
    assert all(c >= 2 for c in counts.values()), counts
    assert sum(a["solved"] for a in BANK) >= 3
    assert all(a.get("diagnosis") for a in BANK if not a["solved"])


@pytest.mark.parametrize("answer", BANK, ids=_id)
def test_every_verdict_is_right(graded, answer):
    result = graded[_id(answer)]
    assert result.solved == answer["solved"], feedback_of(result)


def _named(graded, answers):
    """Return (named, total) by kind, and the feedback of those not named."""
    named, total = defaultdict(int), defaultdict(int)
    missed = []
    for a in answers:
        said = feedback_of(graded[_id(a)])
        total[a["kind"]] += 1
        named[a["kind"]] += a["diagnosis"] in said
        missed += [] if a["diagnosis"] in said else [f"{_id(a)}: {said}"]
    return named, total, missed


def test_most_wrong_answers_of_each_kind_are_named(graded, capsys):
    wrong = [a for a in BANK if not a["solved"] and a["kind"] != HELD_OUT]
    named, total, missed = _named(graded, wrong)
    share = sum(named.values()) / sum(total.values())
    with capsys.disabled():
        for kind in KINDS:
            print(f"\nkinds bank, {kind}: {named[kind]} of {total[kind]} named", end="")
        print(f"\nkinds bank: {sum(named.values())} of {sum(total.values())} ({share:.0%})")
    assert share >= NAMED_GOAL, "\n".join(missed)


def test_the_held_out_share_is_printed(graded, capsys):
    held = [a for a in BANK if a["kind"] == HELD_OUT]
    assert len(held) >= 5 and not any(a["solved"] for a in held)
    named, total, missed = _named(graded, held)
    with capsys.disabled():
        print(f"\nkinds bank, held out: {named[HELD_OUT]} of {total[HELD_OUT]} named")
        print("\n".join(f"  not named: {m}" for m in missed))
