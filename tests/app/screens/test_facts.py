"""Facts are fields: reword every feedback sentence and nothing decided from an attempt changes.

The voice (grader/feedback/voice.py, the sandbox's verdict sentences and the instructors' mistake
sentences, which `feedback.hint` says) is replaced by one that upper-cases everything. The same
answers are graded by the real grader, recorded in a real store and read back: whether the
solution may be revealed, what Progress suggests practising and the gradebook's statuses are the
same in both voices, while every sentence differs.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import replace

import pytest

import data
from app.screens.exercise import real_attempts
from app.screens.progress import suggestion
from app.storage import REGRADE, Attempt, Facts, facts_of, open_store
from grader import Grader
from grader import gradebook as batch
from grader.course import discover
from grader.feedback import voice as feedback
from grader.sandbox import verdict

# (exercise, answer): solved, refused, raised, and the misconceptions the course practises
ANSWERS = [
    ("dcounts_sum_inv", "dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)"),
    ("dcounts_sum_inv", "dcounts_sum_inv = (counts * dprobs).sum(1)"),
    ("dcounts_sum_inv", "dcounts_sum_inv = (counts * dprobs).sum(1)"),
    ("dprobs", "dprobs = (1.0 /"),
    ("dprobs", "x = 1\ny = x / 0"),
    ("dprobs", "loss.backward()\ndprobs = probs.grad"),
    ("dprobs", "dprobs = -(1.0 / probs) * dlogprobs"),
    ("dprobs", "dprobs = -(1.0 / probs) * dlogprobs"),
    ("dbndiff", "dbndiff = bnvar_inv * dbnraw"),
    ("dlogprobs", "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / 32"),
]


@pytest.fixture(scope="module")
def catalog():
    return discover()


@pytest.fixture(scope="module")
def default_data():
    return data.default_dataset()


def _shouted(function):
    """Return the function with its sentences upper-cased (other values unchanged)."""

    @functools.wraps(function)
    def loud(*args, **kwargs):
        said = function(*args, **kwargs)
        return said.upper() if isinstance(said, str) else said

    return loud


@pytest.fixture
def reworded(monkeypatch):
    """Replace every sentence of the voice by an upper-cased one, for one test."""
    for name, function in inspect.getmembers(feedback, inspect.isfunction):
        if function.__module__.startswith(f"{feedback.__name__}.") and not name.startswith("_"):
            monkeypatch.setattr(feedback, name, _shouted(function))
    for key, function in feedback.SENTENCES.items():
        monkeypatch.setitem(feedback.SENTENCES, key, _shouted(function))
    monkeypatch.setattr(feedback, "GRADER_FAULT", feedback.GRADER_FAULT.upper())
    for key, text in verdict.MESSAGES.items():
        monkeypatch.setitem(verdict.MESSAGES, key, text.upper())


def _decisions(grader: Grader, catalog, tmp_path, tag: str) -> tuple[list, dict]:
    """Grade every answer, record it, read it back; return the sentences and the decisions."""
    store = open_store(f"sqlite:///{tmp_path / tag}.sqlite3")
    me = store.learners.add_profile("ada")
    said, gradebook = [], []
    for i, (exercise, code) in enumerate(ANSWERS):
        result = grader.grade(exercise, code)
        summary = result.summary_with_hint()
        said.append(summary)
        attempt = Attempt(exercise, code, result.solved, summary, 0.0, 1.0, "default")
        store.work.record_attempt(me, replace(attempt, facts=facts_of(result)))
        answer = tmp_path / tag / f"{i}" / f"{exercise}.py"
        answer.parent.mkdir(parents=True)
        answer.write_text(code)
        item = batch.Item(f"{i}", "exercise", exercise, tmp_path, (tag, f"{i}", answer.name))
        row = batch.grade_one(grader, item)
        gradebook.append((row.solved, row.status))
    attempts = store.work.attempts(me)
    known = {e.id for e in catalog.exercises}
    decisions = {
        "reveal": {
            e: real_attempts([a for a in attempts if a.exercise_id == e], catalog.get(e).starter)
            for e, _ in ANSWERS
        },
        "practice": suggestion(attempts, store.work.statuses(me), known, catalog.course),
        "gradebook": gradebook,
        "facts": [a.facts for a in attempts],
    }
    return said, decisions


def test_rewording_every_sentence_changes_no_decision(default_data, catalog, tmp_path, request):
    grader = Grader(default_data, catalog)
    plain_said, plain = _decisions(grader, catalog, tmp_path, "plain")
    request.getfixturevalue("reworded")
    loud_said, loud = _decisions(Grader(default_data, catalog), catalog, tmp_path, "loud")
    assert all(a != b and b == b.upper() for a, b in zip(plain_said, loud_said, strict=True))
    assert loud == plain
    assert plain["reveal"]["dprobs"] == 2, "the sign slips ran; the refused and raised did not"
    assert plain["practice"] is not None and "kept dim" in plain["practice"][1]
    assert {f.misconception for f in plain["facts"]} >= {"keepdim_lost", "sign_flipped"}


def test_a_regrade_does_not_count_towards_revealing_the_solution():
    facts = Facts(True, "", "", "not_solved")
    own = Attempt("dprobs", "dprobs = 1 / probs", False, "", 0.0, 1.0, "default", facts=facts)
    regraded = replace(own, origin=REGRADE)
    assert real_attempts([own, regraded, regraded], "dprobs = None") == 1
