"""Benchmark the app: first page render after the server is up, and memory after ten sessions.

    python bench/bench_app.py [--sessions 10]

Starts `streamlit run app/main.py` on a free port with a fresh data directory, waits for the
health check, then opens Home in Debian's headless chromium (Playwright) and times:
- first render: until Home's title is on the screen (the first session pays for importing torch);
- complete: until the dataset figures are shown (the default dataset is built and described).
Then it opens sessions up to the given number (Home or an exercise page each) and prints the
resident memory of the server process and of its whole process tree (the grader's sandbox
zygote and workers included).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
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
WAIT_MS = 120_000


def main() -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ninja-bench-") as tmp:
        process, url = start(Path(tmp))
        try:
            measure(url, process.pid, args.sessions)
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
    return 0


def start(tmp: Path) -> tuple[subprocess.Popen, str]:
    """Start the app and return it once its health check answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "NINJA_DATA_DIR": str(tmp / "var")}
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app/main.py",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
    ]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1):
                break
        except OSError:
            if time.perf_counter() - started > 60 or process.poll() is not None:
                raise RuntimeError("the app did not start") from None
            time.sleep(0.05)
    print(f"server up (health check answers) after {time.perf_counter() - started:.2f} s")
    return process, url


def measure(url: str, pid: int, sessions: int) -> None:
    """Time the first page and measure memory after the sessions."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        start = time.perf_counter()
        page.goto(url)
        page.get_by_role("heading", name="Backprop Ninja").wait_for(timeout=WAIT_MS)
        first = time.perf_counter() - start
        page.get_by_text("words, vocabulary").wait_for(timeout=WAIT_MS)
        complete = time.perf_counter() - start
        print(f"first page (Home title) rendered in {first:.2f} s after the server was up")
        print(f"Home complete (dataset figures shown) in {complete:.2f} s")
        print(f"second session, Home title in {_open(browser, url):.2f} s")
        for i in range(sessions - 2):  # each new page is a new session; all stay open
            _open(browser, f"{url}/dlogprobs" if i % 2 else url)
        time.sleep(1)
        server, tree = rss(pid), sum(rss(p) for p in tree_pids(pid))
        print(
            f"after {sessions} sessions: server RSS {server / 2**20:.0f} MiB, "
            f"whole process tree {tree / 2**20:.0f} MiB"
        )
        browser.close()


def _open(browser, url: str) -> float:
    """Open url in a new session (a new page); return seconds until its title shows."""
    page = browser.new_page()
    start = time.perf_counter()
    page.goto(url)
    page.locator("h1").first.wait_for(timeout=WAIT_MS)
    return time.perf_counter() - start


def rss(pid: int) -> int:
    """Return a process's resident memory in bytes (0 if it has gone)."""
    try:
        fields = Path(f"/proc/{pid}/status").read_text().split("\nVmRSS:")[1].split()
    except (OSError, IndexError):
        return 0
    return int(fields[0]) * 1024


def tree_pids(pid: int) -> list[int]:
    """Return pid and every descendant of it."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            children = (
                (task / "children").read_text().split() if (task / "children").exists() else []
            )
            todo.extend(int(c) for c in children)
    return found


if __name__ == "__main__":
    sys.exit(main())
