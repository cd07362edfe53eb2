"""One learner floods the class; two others go on working: their submit-to-verdict times.

    python bench/bench_flood.py [--rounds 12] [--dir FOLDER]

Starts the classroom stack (`deploy/stack up`: PostgreSQL, the test provider, two replicas,
HAProxy, a worker) in a folder of its own, signs in two learners, one on each replica, and has
each submit an answer to `dlogprobs` every 2.5 s (alternately wrong and right, under their
30 a minute), timing each from Ctrl+Enter to its attempt recorded in the database (polled
every 20 ms): first alone, then while a third learner, in a process and browser of its own,
floods the class through the proxy: submits as fast as the page takes them, and uploads word
lists one after another (a 2 MiB list each, its words new each time). It prints the two
learners' p50 / p95 / max in both phases, and what the flooder got: submissions graded and
refused, word lists kept and refused (the limits of docs/classroom.md, "What one learner may
ask"). Figures depend on the machine and its load: quote them with both (bench/README.md).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.util
import json
import multiprocessing
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
WRONG = "dlogprobs = torch.zeros_like(logprobs)\n"
RIGHT = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / n\n"
PACE = 2.5  # seconds between one learner's submissions


def _tests_module(relative: str):
    """Return a helper of the tests (tests/<relative>) as a member of the package `tests` (the
    e2e helpers import each other relatively), the packages made from their folders: the tests
    are not installed, and nothing is added to the import path."""
    for name in ("tests", "tests.e2e", "tests.grader"):
        if name not in sys.modules:
            spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
            module = importlib.util.module_from_spec(spec)
            module.__path__ = [str(ROOT.joinpath(*name.split(".")))]
            sys.modules[name] = module
    return importlib.import_module("tests." + relative.replace("/", ".").removesuffix(".py"))


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--rounds", type=int, default=12, help="submissions per learner per phase")
    args.add_argument("--dir", type=Path, help="the stack's folder (default: a new one)")
    options = args.parse_args()
    helpers = _tests_module("e2e/stack_helpers.py")
    folder = options.dir or Path(tempfile.mkdtemp(prefix="bench-flood-")) / "stack"
    helpers.prove_for(folder)
    up = helpers.stack("up", "--dir", str(folder), "--port", str(_free_port()))
    if up.returncode != 0:
        print(up.stderr, file=sys.stderr)
        return 1
    try:
        state = {**json.loads((folder / "stack.json").read_text()), "folder": str(folder)}
        return measure(state, options.rounds)
    finally:
        helpers.stack("down", "--dir", str(folder), timeout=300)
        shutil.rmtree(helpers.operator_tools().postgres_home(folder), ignore_errors=True)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(state: dict, rounds: int) -> int:
    """Time the two learners alone, then beside the flood; print the figures."""
    from playwright.sync_api import sync_playwright

    e2e = _tests_module("e2e/e2e_helpers.py")
    attacks = _tests_module("e2e/test_class_attacks.py")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(e2e.CHROMIUM), args=e2e.CHROMIUM_ARGS
        )
        learners = [_learner(browser, state, attacks, e2e, n) for n in (1, 2)]
        alone = _phase(state, learners, rounds, e2e)
        stop = multiprocessing.Event()
        done = multiprocessing.Queue()
        flood = multiprocessing.Process(target=_flood, args=(state, stop, done))
        flood.start()
        time.sleep(20)  # the flooder signs in and starts
        beside = _phase(state, learners, rounds, e2e)
        stop.set()
        flood.join(timeout=120)
        got = done.get(timeout=5) if not done.empty() else {}
        browser.close()
    for name, figures in (("alone", alone), ("beside the flood", beside)):
        for who, times in figures.items():
            print(f"{who}, {name}: {_figures(times)}")
    print(f"the flooder: {json.dumps(got)}")
    return 0


def _learner(browser, state, attacks, e2e, n: int):
    """Sign in learner n on replica n; return (page, their identity)."""
    sub = f"bench-{n}"
    attacks.account(state, sub, {"name": f"Bench {n}"})
    page = browser.new_context(viewport=attacks.VIEW).new_page()
    cookie = {"name": "NINJA_REPLICA", "value": f"replica{n}", "url": state["url"]}
    page.context.add_cookies([cookie])
    attacks.sign_in_as(page, state, sub)
    e2e.open_page(page, f"{state['url']}/dlogprobs")
    return page, f"{attacks.provider_url(state)} {sub}"


def _phase(state: dict, learners, rounds: int, e2e) -> dict[str, list[float]]:
    """Each learner submits `rounds` times, PACE apart; return each one's times (seconds)."""
    times: dict[str, list[float]] = {owner: [] for _, owner in learners}
    for r in range(rounds):
        for page, owner in learners:
            before = _attempts(state, owner)
            e2e.type_and_submit(page, RIGHT if r % 2 else WRONG)
            start = time.monotonic()
            while _attempts(state, owner) == before and time.monotonic() - start < 60:
                time.sleep(0.02)
            times[owner].append(time.monotonic() - start)
        time.sleep(max(0.0, PACE - sum(t[-1] for t in times.values())))
    return times


def _attempts(state: dict, owner: str) -> int:
    with psycopg.connect(state["database_url"]) as db:
        return db.execute(
            "SELECT COUNT(*) FROM attempts a JOIN profiles p ON p.id = a.profile_id"
            " WHERE p.owner = %s",
            (owner,),
        ).one()[0]


def _flood(state: dict, stop, done) -> None:
    """Flood the class as one learner until told to stop: submissions as fast as the page takes
    them, word lists one after another; put what it got on `done`."""
    from playwright.sync_api import sync_playwright

    e2e = _tests_module("e2e/e2e_helpers.py")
    attacks = _tests_module("e2e/test_class_attacks.py")
    got = {"submitted": 0, "uploads tried": 0, "uploads refused on sight": 0}
    words = Path(tempfile.mkdtemp(prefix="bench-flood-words-"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(e2e.CHROMIUM), args=e2e.CHROMIUM_ARGS
        )
        attacks.account(state, "flood", {"name": "Flo Flood"})
        page = browser.new_context(viewport=attacks.VIEW).new_page()
        attacks.sign_in_as(page, state, "flood")
        while not stop.is_set():
            e2e.open_page(page, f"{state['url']}/dlogprobs")
            for _ in range(10):
                e2e.type_and_submit(page, WRONG)
                got["submitted"] += 1
            _upload(page, state, e2e, words, got)
        browser.close()
    got |= _refusals(state)
    done.put(got)


def _upload(page, state: dict, e2e, words: Path, got: dict) -> None:
    """Upload one new 2 MiB word list on Home and keep it, or see the refusal."""
    e2e.open_page(page, state["url"])
    page.get_by_text("Change the dataset").click()
    page.get_by_text("My own word list").click()
    got["uploads tried"] += 1
    if page.get_by_text("word lists in the last 24 hours").count():
        got["uploads refused on sight"] += 1
        return
    path = words / f"list{got['uploads tried']}.txt"
    stem = f"w{got['uploads tried']}x"
    path.write_text("\n".join(f"{stem}{chr(97 + i % 26)}{i:06d}" for i in range(200_000)))
    page.locator("input[type='file']").set_input_files(str(path))
    button = page.get_by_role("button", name="Use this word list")
    button.wait_for(timeout=120_000)
    button.click()


def _refusals(state: dict) -> dict:
    """Return the flooder's attempts recorded, word lists kept, and limits met."""
    with psycopg.connect(state["database_url"]) as db:
        found = db.execute(
            "SELECT (SELECT COUNT(*) FROM attempts a WHERE a.profile_id = p.id),"
            " (SELECT COUNT(*) FROM word_list_uploads u WHERE u.profile_id = p.id)"
            " FROM profiles p WHERE p.owner LIKE %s",
            ("% flood",),
        ).one()
        hits = db.execute(
            "SELECT h.quota, h.count FROM quota_hits h JOIN profiles p ON p.id = h.profile_id"
            " WHERE p.owner LIKE %s",
            ("% flood",),
        ).fetchall()
    return {"graded": found[0], "word lists kept": found[1], "limits met": dict(hits)}


def _figures(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    return (
        f"{len(times)} submissions, p50 {statistics.median(ordered) * 1000:.0f} ms, "
        f"p95 {p95 * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms"
    )


if __name__ == "__main__":
    sys.exit(main())
