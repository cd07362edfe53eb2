"""Every change the feedback proposes, across the banks, gives autograd's answer when applied:
each check that proposes one carries it as a field (`Check.remedy`), and the learner's code with
it (followed by the remedy's line, or rewritten as the remedy says) is graded again, in the
sandbox as every answer is: its values then match autograd's on the main batch and with random
upstream gradients. A sentence of the voice that proposes a change without one fails."""

from __future__ import annotations

import re

import pytest

from grader.result import PASS

# What the voice says only when it proposes a change (a dim, a broadcast, a transpose, `@` for
# `*`, brackets, `num_classes`, `+=`, one index, a factor): such a sentence must carry its remedy.
PROPOSES = re.compile(
    r"gives the gradient|broadcast it back|so sum over that dim alone|then sum over dim"
    r"|write `\.sum\(|; index once: |use `\+=`|give `num_classes=|the gradient is yours times"
    r"|sum over dim \d+ \(|sum with keepdim=True|multiply it by the upstream gradient"
    r"|one factor too many, `[^`]+`: leave it out"
)


def _exercise_results(graded_banks):
    """Yield (answer, its result or the result of each of its parts) for one-answer grading."""
    for answer, result in graded_banks:
        if hasattr(result, "checks"):
            for part in result.parts or (result,):
                yield answer, part


def _listed(catalog) -> tuple[str, ...]:
    """Return the instructors' listed mistakes' sentences (theirs, proven by `validate`)."""
    return tuple(m.message.removeprefix("Hint: ") for e in catalog.exercises for m in e.mistakes)


@pytest.fixture(scope="module")
def proposals(graded_banks, catalog):
    """Return (answer, exercise id, check) for each failed check that proposes a change."""
    listed, found = _listed(catalog), []
    for answer, result in _exercise_results(graded_banks):
        for check in (c for c in result.checks if c.status == "fail"):
            said = f"{check.message} {check.hint}"
            if getattr(check, "remedy", None) is not None or (
                PROPOSES.search(said) and not any(m in said for m in listed)
            ):
                found.append((answer, result.exercise, check))
    return found


def test_every_proposed_change_carries_its_remedy(proposals, capsys):
    unverified = [
        f"{a['bank']}: {a['id']}: {c.message} {c.hint}"
        for a, _, c in proposals
        if not getattr(c, "remedy", None)
    ]
    with capsys.disabled():
        print(
            f"\nremedies proposed across the banks: {len(proposals)}; unverified: {len(unverified)}"
        )
    assert not unverified, "\n".join(unverified)


def test_every_remedy_applied_gives_autograds_answer(proposals, bank_grader, capsys):
    checked = 0
    for answer, exercise, check in (p for p in proposals if getattr(p[2], "remedy", None)):
        remedy = check.remedy
        code = remedy.code if remedy.whole else f"{answer['code'].rstrip()}\n{remedy.code}\n"
        again = bank_grader.grade(exercise, code)
        statuses = {c.kind: c.status for c in again.checks}
        where = f"{answer['id']}: {remedy.code!r}: {again.summary_with_hint()}"
        assert statuses["lecture"] == PASS and statuses["random"] == PASS, where
        checked += 1
    with capsys.disabled():
        print(f"\nremedies applied and checked against autograd: {checked}")
    assert checked >= 25, "the banks hold remedies of every kind"


def test_no_detector_failed_on_any_bank_answer(grading_errors):
    assert not grading_errors, [r.getMessage() for r in grading_errors]
