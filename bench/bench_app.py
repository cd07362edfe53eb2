"""Benchmark the app: first page, submit-to-feedback in a browser, memory per idle session.

    python bench/bench_app.py [--sessions 10] [--submissions 20] [--baseline main]

Starts `streamlit run app/server.py` (as scripts/serve does) on a free port with a fresh data
directory, waits for the health check, then opens Home in Debian's headless chromium
(Playwright) and times:
- first render: until Home's title is on the screen (the first session pays for importing torch);
- complete: until the dataset figures are shown (the default dataset is built and described).
Then, on a warm exercise page, it types a different wrong answer each time, waits for the
auto-save to settle, presses Ctrl+Enter and times until the new feedback is painted (the next
animation frame after it is in the page): p50 and p95. Submissions are paced at one a second
or slower, under the app's rate limit. Last it opens sessions (Home or an exercise page each),
leaves them idle and prints the server's resident memory per session, and the resident memory
of the server and of its whole process tree (the sandbox's zygote and workers included).
It ends with the figures beside issue 12's goals, and the load average before and after (the
machine's load moves them more than most changes do). `--baseline COMMIT` also serves that commit
(checked out into a temporary git worktree, as bench_class.py does) beside this checkout: each
server's first page in turn, then their exercise pages take turns, one submission each (a change
in the machine's load falls on both alike), then memory; it prints the ratios baseline / new.
"""

from __future__ import annotations

import argparse
import contextlib
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
EDITOR = "iframe[title*='code_editor']"
# Issue 12's goals: (figure, unit, at most).
GOALS = {
    "first page (Home title after the server is up)": ("s", 2.0),
    "submit to feedback painted, p50": ("ms", 300),
    "submit to feedback painted, p95": ("ms", 600),
    "server memory per idle session": ("MiB", 15),
}


def main() -> int:
    """Run the benchmark and print its figures (for the baseline commit too, if named)."""
    from bench_class import checkouts  # bench_class imports this module: imported here

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--submissions", type=int, default=20)
    parser.add_argument(
        "--baseline",
        default="",
        help="a commit (main) served beside this checkout, from a temporary git worktree; their"
        " submissions alternate; the ratios baseline / new are printed",
    )
    args = parser.parse_args()
    load = os.getloadavg()
    with (
        tempfile.TemporaryDirectory(prefix="ninja-bench-") as tmp,
        checkouts(args.baseline, Path(tmp)) as codes,
        contextlib.ExitStack() as stack,
    ):
        servers = {}
        for label, code in codes:
            print(f"== {label}", flush=True)
            process, url = start(Path(tmp) / label.split()[0], code)
            stack.callback(stop, process)
            servers[label] = (url, process.pid)
        measured = measure(servers, args.sessions, args.submissions)
    for label, figures in measured.items():
        print(f"\n== {label}")
        summary(figures, load, os.getloadavg())
    if len(measured) == 2:
        (base_label, base), (_, new) = measured.items()
        print(f"\n{base_label} / new:")
        for name in GOALS:
            print(f"  {name:<48} x{base[name] / new[name]:.2f}" if new[name] else f"  {name}: -")
    return 0


def stop(process: subprocess.Popen) -> None:
    """Stop a server started by start(), and its children."""
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)


def summary(figures: dict[str, float], before: tuple, after: tuple) -> None:
    """Print each figure beside its goal, and the load average around the run."""
    print("\nissue 12's goals")
    for name, (unit, most) in GOALS.items():
        value = figures[name]
        verdict = "met" if value <= most else "NOT met"
        print(f"  {name:<48} {value:8.2f} {unit:<3} goal <= {most:g} {unit}: {verdict}")
    print(f"load average (1, 5, 15 min): before {_load(before)}; after {_load(after)}")


def _load(load: tuple) -> str:
    return ", ".join(f"{x:.2f}" for x in load)


def start(tmp: Path, code: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """Start the app of the checkout at code and return it once its health check answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # PYTHONPATH: the checkout's own app/, grader/ and data/ before the venv's installed ones
    env = {**os.environ, "NINJA_DATA_DIR": str(tmp / "var"), "PYTHONPATH": str(code)}
    # Exercises are served once proven: prove them as a finished first start would have.
    prove = [
        sys.executable,
        "-m",
        "grader.proving.proofs",
        str(tmp / "var" / "cache" / "proofs.json"),
    ]
    subprocess.run(prove, cwd=code, env=env, check=True, timeout=600)
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app/server.py",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
    ]
    process = subprocess.Popen(
        command,
        cwd=code,
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


def measure(servers: dict, sessions: int, submissions: int) -> dict[str, dict[str, float]]:
    """Time each server's first page, then its feedback (the servers' submissions alternating,
    so that a change in the machine's load falls on all of them alike), then measure memory per
    idle session; return each server's figures."""
    from playwright.sync_api import sync_playwright

    figures: dict[str, dict[str, float]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        firsts = {label: first_page(browser, url) for label, (url, _) in servers.items()}
        exercise = {label: f"{url}/dprobs" for label, (url, _) in servers.items()}
        painted = feedback(browser, exercise, submissions)
        for label, (url, pid) in servers.items():
            print(f"== {label}: second session, Home title in {_open(browser, url):.2f} s")
            per = idle_memory(browser, url, pid, sessions)
            figures[label] = dict(zip(GOALS, (firsts[label], *painted[label], per), strict=True))
        browser.close()
    return figures


def first_page(browser, url: str) -> float:
    """Open Home in a new page; print the time to its title and to its dataset figures."""
    page = browser.new_page()
    start = time.perf_counter()
    page.goto(url)
    page.get_by_role("heading", name="Backprop Ninja").wait_for(timeout=WAIT_MS)
    first = time.perf_counter() - start
    page.get_by_text("words, vocabulary").wait_for(timeout=WAIT_MS)
    complete = time.perf_counter() - start
    print(f"{url}: first page (Home title) rendered in {first:.2f} s after the server was up")
    print(f"{url}: Home complete (dataset figures shown) in {complete:.2f} s")
    page.close()
    return first


def paint_watch(lost_ms: int) -> str:
    """Return the script that resolves `window.painted` with the milliseconds from now to the
    frame that paints a new "Not yet." feedback, or with null if none comes within lost_ms
    (the submission was lost). bench_class.py's browsers use it too."""
    return """() => {
  const alerts = () => [...document.querySelectorAll("[data-testid='stAlert']")]
    .map((a) => a.textContent).filter((t) => t.includes("Not yet.")).join("|");
  const before = alerts(), start = performance.now();
  window.painted = new Promise((resolve) => {
    const look = () => {
      const now = alerts();
      if (now && now !== before) requestAnimationFrame(() => resolve(performance.now() - start));
      else requestAnimationFrame(look);
    };
    look();
    setTimeout(() => resolve(null), LOST_MS);
  });
}""".replace("LOST_MS", str(lost_ms))


WATCH = paint_watch(15000)


def feedback(browser, urls: dict, submissions: int, warmup: int = 3) -> dict:
    """Print and return, per server, p50 and p95 (ms) of Ctrl+Enter to the new feedback
    painted on a warm page; the servers' pages take turns, one submission each."""
    pages = {label: _exercise_page(browser, url) for label, url in urls.items()}
    times: dict[str, list[float]] = {label: [] for label in urls}
    lost = dict.fromkeys(urls, 0)
    for i in range(warmup + submissions):
        for label, (page, content) in pages.items():
            began = time.perf_counter()
            content.click()
            page.keyboard.press("Control+a")
            page.keyboard.type(f"dprobs = torch.ones_like(probs) * {i + 2}.25")
            page.wait_for_timeout(1000)  # the auto-save settles, as when a learner pauses
            page.evaluate(WATCH)
            page.keyboard.press("Control+Enter")
            painted = page.evaluate("window.painted")
            if i >= warmup and painted is None:
                lost[label] += 1
            elif i >= warmup:
                times[label].append(painted)
            time.sleep(max(0.0, 1.2 - (time.perf_counter() - began)))  # under the rate limit
    figures = {}
    for label, (page, _) in pages.items():
        ms = sorted(times[label])
        p50, p95 = ms[len(ms) // 2], ms[min(len(ms) - 1, round(0.95 * len(ms)) - 1)]
        print(
            f"{label}: submit (Ctrl+Enter) to feedback painted, warm page, {len(ms)} "
            f"submissions: p50 {p50:.0f} ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms; "
            f"{lost[label]} without feedback within 15 s"
        )
        page.close()
        figures[label] = (p50, p95)
    return figures


def _exercise_page(browser, url: str) -> tuple:
    """Open an exercise page; return it and its editor's content, once drawn."""
    page = browser.new_page(viewport={"width": 1400, "height": 1800})
    page.goto(url)
    content = page.frame_locator(EDITOR).locator(".ace_content")
    content.wait_for(timeout=WAIT_MS)
    return page, content


def idle_memory(browser, url: str, pid: int, sessions: int) -> float:
    """Open sessions, leave them idle; print and return the server's memory per session (MiB)."""
    time.sleep(2)
    before = rss(pid)
    for i in range(sessions):  # each new page is a new session; all stay open
        _open(browser, f"{url}/dlogprobs" if i % 2 else url)
    time.sleep(3)
    server, tree = rss(pid), sum(rss(p) for p in tree_pids(pid))
    per = (server - before) / sessions / 2**20
    print(f"server memory per idle session: {per:.1f} MiB (RSS delta over {sessions} sessions)")
    print(
        f"after {sessions + 3} sessions: server RSS {server / 2**20:.0f} MiB, "
        f"whole process tree {tree / 2**20:.0f} MiB"
    )
    return per


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
