"""Fixtures for the browser tests: a real `streamlit run app/server.py` and Debian's chromium.

The server runs on a free localhost port with a fresh data directory and a grading time limit of
LOOP_SECONDS (a loop must hold its slot while other learners are served on a busy machine); its
log is kept so that a test can check that it started and ran with no warning or traceback.
Screenshots go under test-output/ (ignored by git).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .e2e_helpers import CHROMIUM, CHROMIUM_ARGS, LOOP_SECONDS, OUTPUT, start_server, stop_server
from .stack_helpers import start_stack


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """Yield the running app, shared by the browser tests."""
    OUTPUT.mkdir(exist_ok=True)
    data, log = tmp_path_factory.mktemp("ninja") / "var", OUTPUT / "server.log"
    running = start_server(data, log, settings={"NINJA_TIME_LIMIT": str(LOOP_SECONDS)})
    yield running
    stop_server(running.process)


@pytest.fixture(scope="session")
def browser():
    """Yield Debian's headless chromium driven by Playwright, or skip without it."""
    if not CHROMIUM.exists():
        pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def running(tmp_path_factory):
    """Yield the classroom stack's recorded state (stack.json, and its folder): one stack per
    test session, shared by test_stack.py and test_class_attacks.py (tests/e2e/stack_helpers.py)."""
    yield from start_stack(tmp_path_factory)


@pytest.fixture
def page(browser):
    """Yield a fresh browser page, tall enough to show a whole exercise."""
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    yield context.new_page()
    context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """When a browser test fails, add what its page showed (address and the main area's words,
    not the long sidebar) and the end of its server's log to the report, so that a failure on a
    CI machine says what the learner would have seen and what the app did."""
    report = yield
    funcargs = getattr(item, "funcargs", {})
    page = funcargs.get("page")
    if report.failed and call.when == "call" and page is not None:
        report.sections.append(("what the page showed", _page_words(item.name, page)))
        for running in funcargs.values():
            log = getattr(running, "log", None)
            if isinstance(log, Path) and log.exists():
                tail = log.read_text(errors="replace").splitlines()[-LOG_LINES:]
                report.sections.append((f"the end of {log.name}", "\n".join(tail)))
    return report


LOG_LINES = 40


def _page_words(name: str, page) -> str:
    """Return the page's address and the words of its main area (or whole body), and keep a
    full-page screenshot in test-output/."""
    try:
        main = page.locator("[data-testid='stMain']")
        words = (main if main.count() else page.locator("body")).inner_text(timeout=5_000)
        page.screenshot(path=OUTPUT / f"failed-{name}.png"[:120], full_page=True)
    except Exception as error:  # the page may be gone with the browser
        words = f"(the page could not be read: {error})"
    return f"{page.url}\n{words[:3000]}"
