"""A crash between a submission and its feedback: the server is killed (SIGKILL), then restarted.

The submission is recorded before it is graded, and its attempt replaces it in one transaction;
so after the restart it is either an attempt with its verdict, or visibly not graded with its
code kept, never half (an attempt without a verdict, or nothing at all).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import time

import pytest

from .e2e_helpers import OUTPUT, editor_shows, open_page, start_server, stop_server, type_and_submit

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TIMEOUT_MS = 60_000
CODE = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / n\n"
NOT_GRADED = "was not graded: the app stopped before it finished"


def _rows(data_dir) -> tuple[list, list]:
    """Return (attempts as (code, solved, summary), pending submissions as code)."""
    with contextlib.closing(sqlite3.connect(data_dir / "progress.sqlite3")) as db:
        attempts = db.execute("SELECT code, solved, summary FROM attempts").fetchall()
        pending = [r[0] for r in db.execute("SELECT code FROM submissions")]
    return attempts, pending


def _wait_for_pending(data_dir, seconds: float = 60) -> None:
    """Return once a submission is recorded (pending, or already replaced by its attempt)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(sqlite3.OperationalError):  # the tables may not exist yet
            attempts, pending = _rows(data_dir)
            if attempts or pending:
                return
        time.sleep(0.02)
    raise AssertionError("no submission was recorded")


@pytest.mark.parametrize("delay", ["30", "0"], ids=["killed-while-grading", "killed-at-once"])
def test_a_killed_server_keeps_the_submission_whole(browser, tmp_path, delay):
    data_dir = tmp_path / "var"
    first = start_server(data_dir, OUTPUT / "crash-1.log", settings={"NINJA_GRADE_DELAY": delay})
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    page = context.new_page()
    try:
        open_page(page, f"{first.url}/dlogprobs")
        type_and_submit(page, CODE)
        _wait_for_pending(data_dir)
        os.killpg(first.process.pid, signal.SIGKILL)
        first.process.wait()
        attempts, pending = _rows(data_dir)
        graded = [a[:2] for a in attempts] == [(CODE, 1)] and pending == [] and bool(attempts[0][2])
        assert graded or (attempts == [] and pending == [CODE]), (attempts, pending)
        if delay != "0":
            assert not graded, "the grading delay keeps it pending"
        second = start_server(data_dir, OUTPUT / "crash-2.log")
        try:
            open_page(page, f"{second.url}/dlogprobs")
            _shows_what_happened(page, graded)
        finally:
            stop_server(second.process)
    finally:
        stop_server(first.process)
        context.close()


def _shows_what_happened(page, graded: bool) -> None:
    """Check the page after the restart: the verdict, or the notice with the code kept."""
    if graded:
        page.get_by_text("Your last attempt (1 so far): solved.").wait_for(timeout=TIMEOUT_MS)
        return
    page.get_by_text(NOT_GRADED, exact=False).wait_for(timeout=TIMEOUT_MS)
    assert editor_shows(page, CODE.splitlines()[0]).startswith(CODE.splitlines()[0])
    page.screenshot(path=OUTPUT / "crash-not-graded.png")
    page.frame_locator("iframe[title*='code_editor']").locator(".ace_content").click()
    page.keyboard.press("Control+Enter")
    page.get_by_text("Solved.", exact=False).first.wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text(NOT_GRADED, exact=False).count() == 0
