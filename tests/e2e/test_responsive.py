"""In a real browser: one learner's infinite loop does not stop anyone else.

Learner A submits `while True: pass` (it runs to the server's time limit, LOOP_SECONDS of CPU, long
enough to outlast the others on a busy machine); while it runs, learner B's correct answer is
graded and learner C opens a page, both before the loop ends.
"""

from __future__ import annotations

import re
import time

import pytest

from .e2e_helpers import LOOP_SECONDS, OUTPUT, WAIT_MS, open_page, type_and_submit

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

LOOP = "while True:\n    pass\n"
ANSWER = "dprobs = (1.0 / probs) * dlogprobs\n"
WARM = "dcounts_sum = (-counts_sum**-2) * dcounts_sum_inv\n"
GRADING = "Grading…"


@pytest.fixture
def second(browser):
    """Yield a page in a second browser context: another learner, another session."""
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    yield context.new_page()
    context.close()


@pytest.fixture
def third(browser):
    """Yield a page in a third browser context."""
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    yield context.new_page()
    context.close()


def test_an_infinite_loop_does_not_block_other_learners(server, page, second, third):
    open_page(second, f"{server.url}/dcounts_sum")  # a warm server: its sandbox has started
    type_and_submit(second, WARM)
    second.get_by_text("Solved.", exact=False).first.wait_for(timeout=WAIT_MS)
    open_page(page, f"{server.url}/dh")
    open_page(second, f"{server.url}/dprobs")
    type_and_submit(page, LOOP)
    page.get_by_text(GRADING).wait_for(timeout=WAIT_MS)
    started = time.monotonic()
    type_and_submit(second, ANSWER)
    second.get_by_text("Solved.", exact=False).first.wait_for(timeout=WAIT_MS)
    graded = time.monotonic() - started
    opened = time.monotonic()
    open_page(third, server.url)
    third.get_by_text("Your map of the backward pass").wait_for(timeout=WAIT_MS)
    loaded = time.monotonic() - opened
    assert page.get_by_text(GRADING).is_visible(), "the loop was still running meanwhile"
    # The proof is the order: both were served while the loop was still running. How fast is a
    # benchmark (bench/bench_load.py); the figures are printed for the log.
    print(f"beside a loop: graded in {graded:.2f} s, Home loaded in {loaded:.2f} s")
    second.screenshot(path=OUTPUT / "solved-beside-a-loop.png")
    # The CPU limit, or on a machine too busy to give the loop its CPU seconds, the wall limit.
    verdict = page.get_by_text(re.compile(r"did not finish within \d+ s\. Check for an infinite"))
    verdict.first.wait_for(timeout=WAIT_MS + 2_000 * LOOP_SECONDS)
    page.screenshot(path=OUTPUT / "infinite-loop.png")
