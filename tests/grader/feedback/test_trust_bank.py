"""Issue 38's bank (tests/grader/feedback/bank.toml), written before its detectors: every verdict
right, and every wrong answer named (its phrases said, none of its `avoid`, its id carried), with
the share printed per kind."""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests.grader.feedback.conftest import HERE, WHOLE_PASS, answers

BANK = answers(HERE / "bank.toml")
DETECTORS = ("neighbouring step", "partial derivative", "embedding routing", "precedence")
DETECTORS += ("one-hot width",)
KINDS = (*DETECTORS, "claims", "remedies", "fits", "words")


def said(result) -> str:
    """Return what the learner reads first: the failing check's message and hint, or a whole
    pass's message and the diagnosis of its root cause."""
    if hasattr(result, "rows"):
        return f"{result.message} {result.diagnosis}"
    failed = result.failed
    return f"{failed.message} {failed.hint}" if failed else ""


def named(answer: dict, result) -> bool:
    """Return whether the feedback holds a phrase of every group, none to avoid, and the id."""
    text = said(result).lower()
    found = all(any(p.lower() in text for p in group) for group in answer["names"])
    found = found and not any(p.lower() in text for p in answer.get("avoid", []))
    return found and result.misconception == answer.get("misconception", result.misconception)


@pytest.fixture(scope="module")
def graded(graded_banks):
    return {a["id"]: r for a, r in graded_banks if a["bank"] == "bank.toml"}


def test_the_bank_has_every_kind():
    assert len({a["id"] for a in BANK}) == len(BANK), "every answer has its own `why`"
    wrong = [a for a in BANK if not a["solved"]]
    assert all(sum(a["kind"] == k for a in wrong) >= 4 for k in KINDS)
    assert sum(a["solved"] for a in BANK) >= 4 and all(a["names"] for a in wrong)
    assert any(a["exercise"] == WHOLE_PASS for a in wrong)


@pytest.mark.parametrize("answer", BANK, ids=lambda a: a["id"])
def test_every_verdict_is_right(graded, answer):
    result = graded[answer["id"]]
    assert result.solved == answer["solved"], said(result)


def test_every_wrong_answer_is_named(graded, capsys):
    hits, total, missed = defaultdict(int), defaultdict(int), []
    for a in (a for a in BANK if not a["solved"]):
        total[a["kind"]] += 1
        hits[a["kind"]] += named(a, graded[a["id"]])
        if not named(a, graded[a["id"]]):
            result = graded[a["id"]]
            missed.append(f"  not named: {a['id']} [{result.misconception}]: {said(result)}")
    with capsys.disabled():
        for kind in KINDS:
            print(f"\nissue 38 bank, {kind}: {hits[kind]} of {total[kind]} named", end="")
        print(f"\nissue 38 bank: {sum(hits.values())} of {sum(total.values())}")
        print("\n".join(missed))
    assert not missed, "\n".join(missed)
