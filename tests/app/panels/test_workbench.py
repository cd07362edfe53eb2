"""Submitting from a page: too fast is refused with a wait, a busy grader records nothing."""

from __future__ import annotations

import pytest

from app import services
from app.panels import workbench
from app.panels.ratelimit import RateLimiter
from grader import Grader
from grader.sandbox import Limits, Sandbox

from ...grader.order_helpers import slot_held
from ..app_helpers import SOLVED, page_test, submit, texts

ANSWER = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / n\n"
BUSY = "The grader is busy; try again in a moment."


def _attempts(exercise_id: str) -> list:
    store = services.store()
    return store.work.attempts(store.learners.profiles()[0], exercise_id)


@pytest.fixture
def frozen(monkeypatch):
    """Freeze the rate limiter's clock, so that no token comes back during a test."""
    limiter = RateLimiter(clock=lambda: 0.0)
    monkeypatch.setattr(workbench, "limiter", lambda: limiter)
    return limiter


def test_a_burst_is_graded_then_the_learner_is_told_to_wait(fake, frozen):
    at = page_test("dlogprobs").run()
    for i in range(6):
        at = submit(at, f"{SOLVED}\n# try {i}\n")
    assert len(fake.graded) == 5 and len(_attempts("dlogprobs")) == 5
    assert at.warning[0].value == "You are submitting very fast; wait 1 s."
    assert at.text_area[0].value.endswith("# try 5\n"), "the code stays in the editor"


def test_the_whole_pass_is_limited_too(fake, frozen):
    at = page_test("01_mlp", page="whole_pass").run()
    for _ in range(6):
        at = submit(at, f"{SOLVED}\n")
    assert len(fake.graded) == 5
    assert "You are submitting very fast" in at.warning[0].value


@pytest.fixture(scope="module")
def lonely_grader(default_grader_data):
    """Return a real grader whose sandbox has one slot and no queue, started once for the
    module (its zygote imports torch): each test holds the slot only inside _slot_held."""
    box = Sandbox(Limits(cpu_seconds=5, wall_seconds=5), slots=1, queue=0)
    grader = Grader(default_grader_data, sandbox=box)
    grader.prepared(grader.catalog.get("dlogprobs"))
    box.layers()
    yield grader
    box.close()


@pytest.fixture
def lonely(app_env, monkeypatch, lonely_grader):
    """Serve the pages from the one-slot grader."""
    monkeypatch.setattr(services, "grader", lambda source: lonely_grader)
    return lonely_grader


@pytest.fixture(scope="module")
def default_grader_data():
    import data

    return data.default_dataset()


def _slot_held(grader):
    """Hold the only slot with another answer's run while the block runs."""
    zygote = grader.sandbox._zygotes[0]
    return slot_held(zygote, lambda: grader.grade("dlogprobs", ANSWER))


def test_a_busy_grader_says_so_and_records_nothing(lonely):
    at = page_test("dlogprobs").run()
    with _slot_held(lonely):
        at = submit(at, ANSWER)
    assert at.warning[0].value.startswith(BUSY) and not at.error and not at.success
    assert "Your code is kept in the editor." in at.warning[0].value
    assert _attempts("dlogprobs") == [] and "Your last attempt" not in texts(at)
    assert at.text_area[0].value == ANSWER
    at = submit(at, ANSWER)
    assert at.success[0].value.startswith("**Solved.**")
    assert [a.solved for a in _attempts("dlogprobs")] == [True]


def test_a_busy_grader_is_no_attempt_at_the_whole_pass(lonely):
    at = page_test("01_mlp", page="whole_pass").run()
    with _slot_held(lonely):
        at = submit(at, ANSWER)
    assert at.warning[0].value.startswith(BUSY) and not at.error
    store = services.store()
    assert store.work.statuses(store.learners.profiles()[0]) == {}
