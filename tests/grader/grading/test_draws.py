"""Fresh cases drawn ahead: while a submission's worker runs, the grader draws the exercise's
next cases, off the next submission's wait; each drawn set is used by one submission only, and
a submission that finds none draws its own. Learner code runs in the sandbox only."""

from __future__ import annotations

import time

import pytest
import torch

from grader import Grader
from grader.grading.cases import RANDOM
from grader.sandbox import default_sandbox

WAIT = 60  # seconds: a safety net for a test that fails, never a bound on a passing one


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog, default_sandbox())


def _drawn(grader: Grader, exercise: str):
    """Return the cases drawn for an exercise's next submission."""
    deadline = time.monotonic() + WAIT
    while exercise not in grader._drawn and time.monotonic() < deadline:
        time.sleep(0.01)
    return grader._drawn[exercise]


def _cases_of_next_run(grader: Grader, monkeypatch) -> list:
    """Record the cases the grader sends the sandbox."""
    sent = []
    real = grader.sandbox.run
    monkeypatch.setattr(
        grader.sandbox,
        "run",
        lambda code, cases, **kw: sent.append(cases) or real(code, cases, **kw),
    )
    return sent


def test_the_next_submission_uses_cases_drawn_after_the_verdict_once(grader, monkeypatch):
    code = grader.catalog.get("dcounts").solution()
    assert grader.grade("dcounts", code).solved
    drawn = _drawn(grader, "dcounts")
    sent = _cases_of_next_run(grader, monkeypatch)
    assert grader.grade("dcounts", code).solved
    assert sent[0] == drawn.cases  # the very cases drawn ahead
    after = _drawn(grader, "dcounts")  # drawn anew during this run, never the same again
    assert after is not drawn
    random = [
        dict(p.cases[[c.name for c in p.cases].index(RANDOM)].tensors) for p in (drawn, after)
    ]
    assert not torch.equal(random[0]["dprobs"], random[1]["dprobs"])


def test_a_submission_that_finds_no_drawn_cases_draws_its_own(grader, monkeypatch):
    code = grader.catalog.get("dprobs").solution()
    monkeypatch.setattr(grader, "_draw", lambda exercise: None)  # nothing drawn ahead
    sent = _cases_of_next_run(grader, monkeypatch)
    assert grader.grade("dprobs", code).solved and grader.grade("dprobs", code).solved
    assert "dprobs" not in grader._drawn
    randoms = [_upstream(c for c in cases if c.name == RANDOM) for cases in sent]
    assert len(randoms) == 2 and not torch.equal(*randoms)  # each submission's own draw


def _upstream(cases) -> torch.Tensor:
    """Return a case's upstream gradients (its tensors named d...), flattened into one."""
    (case,) = cases
    grads = [t.reshape(-1).double() for k, t in sorted(case.tensors.items()) if k.startswith("d")]
    assert grads, "a random case has upstream gradients"
    return torch.cat(grads)
