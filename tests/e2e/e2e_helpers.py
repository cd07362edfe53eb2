"""Helpers for the browser tests: start and stop the app, drive the Ace editor."""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "test-output"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT = 60
EDITOR = "iframe[title*='code_editor']"
WAIT_MS = 120_000  # a hang guard, not a bound: the machine may be busy with other work
FIRST_WAIT_MS = 90_000  # for a page's title, before open_page opens it again
PASTED_FROM = 400  # characters: longer code is pasted (_enter)
LOOP_SECONDS = 20  # the shared server's NINJA_TIME_LIMIT: CPU seconds a loop holds its slot
DUMP_CHARS = 12_000  # of a server's thread dump, in a blank page's failure
DUMP_WAIT = 30  # seconds for a thread dump to be written whole
STARTED: dict[str, Server] = {}  # the servers start_server started, by base URL


class Server:
    """A running app: its base URL, its log file and its data directory."""

    def __init__(self, url: str, log: Path, process: subprocess.Popen, data_dir: Path):
        self.url, self.log, self.process, self.data_dir = url, log, process, data_dir

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def log_without_dumps(self) -> str:
        """Return the log without the thread dumps `why_blank` asked for (their frames name
        functions such as exec_func_with_error_handling); a traceback keeps its first and last
        lines, so a check for "Traceback" or "Error" still finds one."""
        dumped = re.compile(r'^(Thread 0x|Current thread 0x|  File "|  \.\.\.)')
        return "\n".join(line for line in self.log_text().splitlines() if not dumped.match(line))

    def draft(self, exercise_id: str, start: str, seconds: float = 20) -> str | None:
        """Return a saved draft of exercise_id once one starts with `start`, else None (other
        tests' profiles may have drafts of the same exercise)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with contextlib.closing(sqlite3.connect(self.data_dir / "progress.sqlite3")) as db:
                rows = db.execute(
                    "SELECT code FROM drafts WHERE exercise_id = ?", (exercise_id,)
                ).fetchall()
            found = [code for (code,) in rows if code.startswith(start)]
            if found:
                return found[0]
            time.sleep(0.2)
        return None


def free_port() -> int:
    """Return a localhost port that nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(
    data_dir: Path,
    log: Path,
    exercises: Path | None = None,
    settings: dict | None = None,
    port: int | None = None,
    options: tuple[str, ...] = (),
    prove: bool = True,
    script: str = "app/server.py",
) -> Server:
    """Prove the exercises (the shipped ones, or those of another course folder) unless told
    not to (a first start), start `streamlit run app/server.py` (the pages of app/main.py with
    /ready and /metrics, as scripts/serve starts them; on port, else a free one; with Streamlit's
    command-line options; or another script, from the repository's root) and wait until its
    health check answers."""
    if prove:
        _prove(data_dir, exercises)
    port = port or free_port()
    env = {**os.environ, "NINJA_DATA_DIR": str(data_dir), **(settings or {})}
    if exercises:
        env["NINJA_EXERCISES_DIR"] = str(exercises)
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        *options,
    ]
    log.parent.mkdir(parents=True, exist_ok=True)  # test-output/, on a fresh clone
    with log.open("w") as out:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the app exited with {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as response:
                if response.status == 200:
                    STARTED[url] = Server(url, log, process, data_dir)
                    return STARTED[url]
        except OSError:
            time.sleep(0.1)
    stop_server(process)
    raise RuntimeError(f"the app did not answer within {START_TIMEOUT} s:\n{log.read_text()}")


def _prove(data_dir: Path, exercises: Path | None) -> None:
    """Put the exercises' proofs in the data directory's cache, as a finished first start would
    have (the app holds back an exercise until it is proven), so a test can open any at once.

    Proofs are remembered by the content of each exercise's files (grader/proving/proofs.py),
    so one file per test run holds them all: each course folder is proven into it once, and a
    copy goes to every new data directory (a first start is test_path.py's, unproven)."""
    folder = str(exercises) if exercises else ""
    if folder not in _PROVEN_FOLDERS:
        prove = [sys.executable, "-m", "grader.proving.proofs", str(_proofs_of_the_run())]
        subprocess.run([*prove, *filter(None, [folder])], cwd=ROOT, check=True, timeout=600)
        _PROVEN_FOLDERS.add(folder)
    (data_dir / "cache").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_proofs_of_the_run(), data_dir / "cache" / "proofs.json")


_PROVEN_FOLDERS: set[str] = set()  # the course folders proven into this run's file ("": shipped)


@functools.cache
def _proofs_of_the_run() -> Path:
    """Return this test run's proofs file, in a temporary directory removed when it ends."""
    top = Path(tempfile.mkdtemp(prefix="bpn-proofs-"))
    atexit.register(shutil.rmtree, top, ignore_errors=True)
    return top / "proofs.json"


def stop_server(process: subprocess.Popen) -> None:
    """Stop the server's whole process group (streamlit and the grader's sandbox workers)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def open_page(page, url: str) -> None:
    """Open url and wait for the page's title. A page still blank after WAIT_MS is opened once
    more, as a learner would reload it, with a warning that carries what the page showed and
    what its server was doing (`why_blank`: the run's warnings summary shows it); blank again,
    the test fails with both. The first wait is shorter, so that both fit in a test's 300 s."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    seen = []
    for wait in (FIRST_WAIT_MS, WAIT_MS):
        page.goto(url)
        try:
            page.locator("h1").first.wait_for(timeout=wait)
            return
        except PlaywrightTimeout:
            seen.append(why_blank(page, url))
            blank = f"{url} showed no title in {wait // 1000} s\n{seen[-1]}"
            warnings.warn(BlankPage(blank), stacklevel=2)
    raise AssertionError(f"{url} showed no title, twice:\n" + "\n".join(seen))


class BlankPage(UserWarning):
    """A page showed no title within FIRST_WAIT_MS and was opened again."""


def open_section(page, label: str, tries: int = 3):
    """Open the expander whose title holds label and return it. A click can miss while the
    page still lays itself out (an editor's frame loading above moves the title: a run of
    2026-12-06 clicked "Derive it step by step" and the section stayed shut for 30 s), so the
    title is clicked again, as a learner would, until the section is open; `tries` clicks."""
    from playwright.sync_api import expect

    section = page.get_by_test_id("stExpander").filter(has_text=label).first
    title, details = section.locator("summary").first, section.locator("details").first
    title.wait_for(timeout=WAIT_MS)
    for _ in range(tries):
        if details.evaluate("d => d.open"):
            return section
        title.click(timeout=WAIT_MS)
        with contextlib.suppress(AssertionError):
            expect(details).to_have_attribute("open", re.compile(".*"), timeout=15_000)
    if details.evaluate("d => d.open"):
        return section
    raise AssertionError(f"the section {label!r} stayed shut after {tries} clicks")


def why_blank(page, url: str) -> str:
    """Return what a page that shows no title shows (its words; a screenshot in test-output/)
    and, for a server start_server started, every thread's stack in that server now (it writes
    them to its log on SIGUSR1: app/server.py)."""
    found = [f"load average: {os.getloadavg()}"]
    with contextlib.suppress(Exception):  # the page may be gone with the browser
        found.append(f"the page said: {page.locator('body').inner_text(timeout=5_000)[:600]!r}")
        page.screenshot(path=OUTPUT / f"blank-{url.rsplit(':', 1)[-1].replace('/', '-')}.png")
    server = next((s for base, s in STARTED.items() if url.startswith(base)), None)
    if server is not None and server.process.poll() is None:
        before = len(server.log_text())
        os.kill(server.process.pid, signal.SIGUSR1)
        # The thread that takes the signal writes its own stack last ("Current thread"): on a
        # busy machine the dump took more than 2 s to write, so wait for that stack and for the
        # log to stop growing, not a fixed time.
        deadline, seen = time.monotonic() + DUMP_WAIT, ""
        while time.monotonic() < deadline:
            time.sleep(0.5)
            previous, seen = seen, server.log_text()[before:]
            if "Current thread 0x" in seen and seen == previous:
                break
        found.append(f"its server's threads:\n{server.log_text()[before:][:DUMP_CHARS]}")
    return "\n".join(found)


def editor_text(page) -> str:
    """Return the text shown in the Ace editor."""
    return page.frame_locator(EDITOR).locator(".ace_content").inner_text()


def type_and_submit(page, code: str) -> None:
    """Replace the editor's text by code (typed, or pasted when long: _enter), then press
    Ctrl+Enter."""
    type_into(page, page.frame_locator(EDITOR), code)
    page.keyboard.press("Control+Enter")


def type_into(page, frame, code: str) -> None:
    """Replace the text of one Ace editor (a frame locator, when a page has several) by code,
    and wait until it shows the first line."""
    content = frame.locator(".ace_content")
    content.wait_for(timeout=WAIT_MS)
    content.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Backspace")
    _enter(page, code)
    frame.locator(".ace_content", has_text=code.splitlines()[0]).wait_for(timeout=WAIT_MS)


def _enter(page, code: str) -> None:
    """Put code in the focused editor. A whole pass or a training section is a page of code:
    pasted in one input event, as a learner would, rather than typed key by key (minutes on a
    busy machine). Short answers are typed, keys and all."""
    if len(code) > PASTED_FROM:
        page.keyboard.insert_text(code)
    else:
        page.keyboard.type(code)


def editor_shows(page, start: str, seconds: float = 10) -> str:
    """Return the editor's text once it starts with `start` (Ace paints on the next frame),
    once the editor is drawn at all (slow on a busy machine, as after a restart)."""
    page.frame_locator(EDITOR).locator(".ace_content").wait_for(timeout=WAIT_MS)
    deadline = time.monotonic() + seconds
    text = editor_text(page)
    while not text.lstrip("\n").startswith(start) and time.monotonic() < deadline:
        time.sleep(0.1)
        text = editor_text(page)
    return text
