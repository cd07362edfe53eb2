"""In a real browser: write the backward section, check it, train a short run to the end."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .e2e_helpers import OUTPUT, open_page, type_and_submit
from .test_operations import moved, scrape

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# The lecture's Exercise 4 section, one statement per line (typed into Ace as it is).
SECTION = """\
dlogits = F.softmax(logits, 1)
dlogits[range(n), Yb] -= 1
dlogits /= n
dh = dlogits @ W2.T
dW2 = h.T @ dlogits
db2 = dlogits.sum(0)
dhpreact = (1.0 - h**2) * dh
dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
dbnbias = dhpreact.sum(0, keepdim=True)
dhprebn = bngain*bnvar_inv/n*(n*dhpreact - dhpreact.sum(0) - n/(n-1)*bnraw*(dhpreact*bnraw).sum(0))
dembcat = dhprebn @ W1.T
dW1 = embcat.T @ dhprebn
db1 = dhprebn.sum(0)
demb = dembcat.view(emb.shape)
dC = torch.zeros_like(C)
dC.index_add_(0, Xb.view(-1), demb.view(-1, demb.shape[-1]))
"""
TIMEOUT_MS = 120_000
IMAGES, TABLES = "[data-testid='stImage']", "[data-testid='stDataFrame']"
SESSION_GRACE = 15 + 10  # seconds: the grader's grace for a reconnect, and some slack


def _set_number(page, label: str, value: int) -> None:
    """Type a value into a number input and commit it."""
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    page.wait_for_timeout(500)


def _start(page) -> None:
    """Click Start training once the editor's own blur rerun has settled (it can eat a click)."""
    page.locator("h1").first.click()
    page.wait_for_timeout(1500)
    page.get_by_role("button", name="Start training").click()


def test_a_short_training_runs_to_the_end(server, page):
    before = scrape(server.url)
    open_page(page, f"{server.url}/training")
    page.get_by_text("The loop around your code").wait_for(timeout=TIMEOUT_MS)
    type_and_submit(page, SECTION)
    page.get_by_text("All seven gradients match autograd").wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("Settings", exact=True).click()
    _set_number(page, "Steps", 600)
    _set_number(page, "Decay at step", 300)
    _start(page)
    page.get_by_text("Training finished: 600 steps in", exact=False).wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("yours is", exact=False).wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("Your finished runs").wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("Training finished", exact=False).scroll_into_view_if_needed()
    page.screenshot(path=OUTPUT / "training-finished.png")
    page.get_by_text("Your finished runs").scroll_into_view_if_needed()
    page.screenshot(path=OUTPUT / "training-runs.png")
    _reopen_after_a_reload(page)
    _counted(before, scrape(server.url))
    log = server.log_without_dumps()
    for bad in ("Traceback", "WARNING", "Warning", "Error", "error"):
        assert bad not in log, f"the server log has {bad!r}:\n{log}"


def _counted(before: dict[str, float], after: dict[str, float]) -> None:
    """The metrics counted the section's two gradient checks (Submit, then Start training's)
    and one more run finished (each learner's latest run in the local mode: this page's is
    new; no other run of the session's server finishes meanwhile, its long runs are stopped)."""
    assert moved(before, after, "ninja_gradings_total") == {
        'ninja_gradings_total{outcome="solved"}': 2
    }
    finished = 'ninja_training_runs{state="finished"}'  # others may stop meanwhile: not counted
    assert moved(before, after, finished) == {finished: 1}, moved(before, after, "ninja_training")


def _reopen_after_a_reload(page) -> None:
    """Reload, open the finished run from the list: its losses, samples and curve are shown."""
    page.reload()
    page.get_by_text("Your finished runs").wait_for(timeout=TIMEOUT_MS)
    shown = _settled(page)
    _choose(page, "Open a finished run", "600 steps")
    now = _settled(page, until=lambda counts: counts != shown)
    assert now == (shown[0] + 1, shown[1] + 2), "its curve, and its losses and samples"
    page.locator(IMAGES).last.scroll_into_view_if_needed()
    page.screenshot(path=OUTPUT / "training-reopened.png")


def _choose(page, label: str, option: str) -> None:
    """Choose an option of a select box; open it again if a rerun of the page closed it."""
    choice = page.get_by_role("option").filter(has_text=option).first
    for _ in range(5):
        page.get_by_role("combobox", name=label).click()
        try:
            choice.wait_for(timeout=5000)
            choice.click(timeout=5000)
            return
        except PlaywrightTimeout:
            page.screenshot(path=OUTPUT / "training-choose.png")
    raise AssertionError(f"{option!r} could not be chosen in {label!r}")


def _settled(page, until=lambda counts: True, seconds: float = 60) -> tuple[int, int]:
    """Return (images, tables) on the page once until() holds and they stay put for 2 s."""
    deadline, last = time.monotonic() + seconds, None
    while time.monotonic() < deadline:
        counts = page.locator(IMAGES).count(), page.locator(TABLES).count()
        if counts == last and until(counts):
            return counts
        last = counts
        page.wait_for_timeout(2000)
    return last


def _stat(pid: str) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def training_processes(server) -> set[int]:
    """Return the app's training processes (zygotes of job kind "train") and their workers."""
    found: set[int] = set()
    for _ in range(2):  # trainers first, then the workers they forked
        for entry in Path("/proc").iterdir():
            try:
                parent, command = int(_stat(entry.name)[1]), (entry / "cmdline").read_bytes()
            except (OSError, ValueError, IndexError):
                continue
            # its argv: ..., its kind, then the operations its workers may run
            trainer = parent == server.process.pid and b"\x00train\x00" in command
            if trainer or parent in found:
                found.add(int(entry.name))
    return found


def _none_left(server, within: float) -> bool:
    deadline = time.monotonic() + within
    while training_processes(server) and time.monotonic() < deadline:
        time.sleep(0.2)
    return not training_processes(server)


def _start_long_run(server, page) -> None:
    open_page(page, f"{server.url}/training")
    type_and_submit(page, SECTION)
    page.get_by_text("All seven gradients match autograd").wait_for(timeout=TIMEOUT_MS)
    _start(page)
    progress = page.locator("[data-testid='stProgress']", has_text="of 200,000")
    try:
        progress.wait_for(timeout=TIMEOUT_MS)
    finally:
        page.screenshot(path=OUTPUT / "training-long-run.png")
    assert len(training_processes(server)) == 3, "a trainer, its PID namespace's init, a worker"


def test_stop_and_closing_the_tab_leave_no_training_process(server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    page = context.new_page()
    _start_long_run(server, page)
    page.get_by_role("button", name="Stop").click()
    page.get_by_text("as you asked", exact=False).wait_for(timeout=TIMEOUT_MS)
    assert _none_left(server, within=5)
    _start_long_run(server, page)
    context.close()  # the learner closes the tab mid-run
    assert _none_left(server, within=SESSION_GRACE)


def test_a_reload_reattaches_to_the_running_training(server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    page = context.new_page()
    _start_long_run(server, page)
    running = training_processes(server)
    page.reload()
    progress = page.locator("[data-testid='stProgress']", has_text="of 200,000")
    progress.wait_for(timeout=TIMEOUT_MS)
    assert training_processes(server) == running, "the same run, not a new one"
    page.screenshot(path=OUTPUT / "training-reattached.png")
    clicked = time.monotonic()
    page.get_by_role("button", name="Stop").click()
    assert _none_left(server, within=10)
    stopped = time.monotonic() - clicked
    page.get_by_text("as you asked", exact=False).wait_for(timeout=TIMEOUT_MS)
    shown = time.monotonic() - clicked
    print(f"\nStop: worker gone {stopped:.2f} s after the click, 'stopped' shown {shown:.2f} s")
    context.close()
