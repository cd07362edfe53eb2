"""bench/bench_class.py's replica command: root's as before, and the ordinary user's (--as-user).

The user's replica must run as the user (its setpriv prefix, its Python, from its readable copy)
and with the user's environment alone, nothing of root's; root's replica keeps this process's
Python and environment. --as-user is refused beside --baseline.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import types
from pathlib import Path

import pytest

from tests.grader.ordinary_user import Ordinary

from ..e2e.e2e_helpers import ROOT
from .scripts import import_script


@pytest.fixture
def bench_class(monkeypatch):
    """Import bench/bench_class.py (a script beside the modules it imports by name)."""
    return import_script("bench_class", monkeypatch)


def test_the_users_replica_runs_as_the_user_with_its_environment_alone(bench_class, monkeypatch):
    monkeypatch.setenv("ROOTS_OWN", "not for the user")
    become = ["setpriv", "--reuid=ninjatest", "--regid=ninjatest", "--clear-groups", "--"]
    top = Path("/tmp/bpn-ordinary-x")
    env = {"PATH": os.defpath, "HOME": "/home/ninjatest"}
    user = Ordinary(become, top / "venv" / "bin" / "python", top / "checkout", env)
    command, env = bench_class.replica_command(top / "checkout", top / "d" / "var", 8600, 0, user)
    python = 3 + len(become)
    assert command[:python] == ["taskset", "-c", "0", *become], command
    assert command[python : python + 5] == [
        str(top / "venv" / "bin" / "python"), "-m", "streamlit", "run", "app/server.py",
    ]  # fmt: skip
    assert "ROOTS_OWN" not in env and env["HOME"] == "/home/ninjatest", env
    assert env["NINJA_DATA_DIR"] == str(top / "d" / "var")
    assert env["PYTHONPATH"] == str(top / "checkout")


def test_roots_replica_keeps_this_python_and_environment(bench_class, monkeypatch):
    monkeypatch.setenv("ROOTS_OWN", "kept")
    command, env = bench_class.replica_command(ROOT, Path("/tmp/d/var"), 8600, 1)
    assert command[:6] == ["taskset", "-c", "1", sys.executable, "-m", "streamlit"], command
    assert "setpriv" not in command
    assert env["ROOTS_OWN"] == "kept" and env["PYTHONPATH"] == str(ROOT)


def refusal(bench_class, monkeypatch, capsys, argv: list[str]) -> tuple[int, str]:
    """Run bench_class.main with argv; return its exit code and what it wrote to stderr (it
    must stop at its arguments: its first step after them raises here)."""
    monkeypatch.setattr(sys, "argv", ["bench_class.py", *argv])

    def started(*_):  # main's first step after its arguments: nothing may run past it here
        raise AssertionError("the bench started")

    monkeypatch.setattr(os, "sched_setaffinity", started)
    with pytest.raises(SystemExit) as exit_:
        bench_class.main()
    return exit_.value.code, capsys.readouterr().err


def test_as_user_is_refused_beside_a_baseline(bench_class, monkeypatch, capsys):
    code, err = refusal(bench_class, monkeypatch, capsys, ["--as-user", "--baseline", "main"])
    assert code == 2
    assert "--as-user" in err


@pytest.mark.parametrize(
    "argv", [["--each-as-user"], ["--each-as-user", "--setup", "none"]], ids=["alone", "no-setup"]
)
def test_each_as_user_needs_a_baseline(bench_class, monkeypatch, capsys, argv):
    code, err = refusal(bench_class, monkeypatch, capsys, argv)
    assert code == 2
    assert "--each-as-user" in err


def test_each_as_user_runs_each_checkout_as_root_and_as_the_user(bench_class, monkeypatch):
    built = []

    @contextlib.contextmanager
    def as_user(code):
        built.append(code)
        yield types.SimpleNamespace(root=code / "copy")

    monkeypatch.setattr(bench_class, "as_ordinary_user", as_user)
    codes = [("baseline abc1234", Path("/b")), ("new", Path("/n"))]
    with contextlib.ExitStack() as stack:
        sides = bench_class.both_users(codes, stack, types.SimpleNamespace(baseline="main"))
    assert built == [Path("/b"), Path("/n")]
    assert [(label, code) for label, code, _ in sides] == [
        ("baseline abc1234, root", Path("/b")),
        ("baseline abc1234, ninjatest", Path("/b/copy")),
        ("new, root", Path("/n")),
        ("new, ninjatest", Path("/n/copy")),
    ]
    assert [user is None for _, _, user in sides] == [True, False, True, False]


def ask_ready(bench_class, answer) -> tuple[list[str], float]:
    """Run bench_class.wait_ready against a local HTTP server whose replies answer(handler,
    asked) makes; return the paths asked and the seconds waited."""
    import http.server
    import threading

    asked = []

    class Replica(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            answer(self, len(asked))

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Replica)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        return asked, bench_class.wait_ready(bench_class.Part("replica", None, url))
    finally:
        server.shutdown()


def test_arriving_at_ready_waits_for_the_first_200_of_ready(bench_class):
    """--arrive ready: the first learner comes when /ready first says 200, not before."""

    def answer(handler, count):
        handler.send_response(200 if count >= 3 else 503)  # ready at the third check
        handler.end_headers()

    asked, waited = ask_ready(bench_class, answer)
    assert asked == ["/ready"] * 3
    assert waited >= 0.2, "two 503s, each followed by a pause of 0.1 s"


def test_waiting_for_ready_outlasts_a_reply_that_is_not_http(bench_class):
    """A replica half started may answer with something that is not HTTP: ask again."""

    def answer(handler, count):
        if count == 1:
            handler.wfile.write(b"not a status line\r\n\r\n")  # http.client: BadStatusLine
            handler.close_connection = True
            return
        handler.send_response(200)
        handler.end_headers()

    asked, _ = ask_ready(bench_class, answer)
    assert asked == ["/ready"] * 2


BURN = (
    "import time\n"
    "end = time.process_time() + 0.3\n"
    "while time.process_time() < end: pass\n"
    "print('burnt', flush=True)\n"
    "time.sleep(60)\n"
)


def test_the_browsers_cpu_leaves_out_the_servers_processes(bench_class):
    """The replicas are this process's children as chromium is: their CPU is the server's
    figure, not chromium's (before, "chromium" held the server's whole CPU as well)."""
    import subprocess

    started = []
    try:
        for _ in range(2):  # one stands for a replica, one for chromium
            child = subprocess.Popen(
                [sys.executable, "-c", BURN], stdout=subprocess.PIPE, text=True
            )
            started.append(child)
            assert child.stdout.readline() == "burnt\n"
        server, browser = (child.pid for child in started)
        # differences: whatever else this process has started (a suite's servers) cancels out
        _, everything = bench_class.tree_cpu()
        _, browsing = bench_class.tree_cpu(frozenset({server}))
        _, neither = bench_class.tree_cpu(frozenset({server, browser}))
        assert everything - browsing >= 0.25  # the server's 0.3 s, give or take a tick
        assert browsing - neither >= 0.25  # the browser's is still counted
    finally:
        for child in started:
            child.kill()
            child.wait()


def test_opens_are_split_by_kind_and_by_the_window_they_began_in(bench_class):
    Open = bench_class.Open
    opens = [
        Open(9.9, "arrival", 3.0, 3.5),  # before the window
        Open(10.0, "move", 0.4, 0.5),  # at its start: in
        Open(12.0, "arrival", 2.0, 2.2),
        Open(20.0, "move", None),  # in, failed
        Open(35.0, "move", 0.9, 1.0),  # at its end: out
    ]
    assert bench_class.opens_in(opens, "move", 10.0, 35.0) == [opens[1], opens[3]]
    assert bench_class.opens_in(opens, "arrival", 10.0, 35.0) == [opens[2]]
    assert bench_class.opens_in(opens, "arrival", 0.0, 10.0) == [opens[0]]


def test_open_figures_count_the_drawn_and_the_failed(bench_class):
    Open = bench_class.Open
    moves = [Open(1.0, "move", s, s + 0.1) for s in (0.2, 0.4, 0.6, 0.8)] + [
        Open(2.0, "move", None)
    ]
    assert bench_class.open_figures(moves) == (
        "n=4, p50 0.40 s, p95 0.80 s (run over p50 0.50 s), 1 failed"
    )
    chromium = [Open(1.0, "chromium", 1.25, 1.25)]
    assert bench_class.open_figures(chromium) == "n=1, p50 1.25 s, p95 1.25 s, 0 failed"
    assert bench_class.open_figures([]) == "n=0, 0 failed"


class FakeSession:
    """A page over no network: the first page of a browser sets a cookie; a right answer is
    solved. Records each page opened with the cookie it was sent."""

    opened: list = []

    def __init__(self, url, page):
        self.page, self.cookie, self.sent = page, None, None
        self.editor_at = None

    def returning(self, cookie):
        self.sent = cookie

    async def open(self):
        self.editor_at = time.perf_counter()
        self.cookie = None if self.sent else f"id-{len(self.opened)}"
        self.opened.append((self.page, self.sent))

    async def change(self, code):
        pass

    async def submit(self, code, timeout):
        kind = "solved" if code == f"{self.page} = right" else "not yet"
        return types.SimpleNamespace(kind=kind, seconds=0.01)

    async def close(self):
        pass


@pytest.mark.parametrize("move", [True, False], ids=["move", "stay"])
def test_a_learner_who_solves_opens_the_next_exercise_as_the_same_browser(
    bench_class, monkeypatch, move
):
    import asyncio

    answers = {"dprobs": ("dprobs = right", ["dprobs = 1 / 0"]), "dh": ("dh = right", ["dh * 2"])}
    FakeSession.opened = []
    monkeypatch.setattr(bench_class, "StreamlitSession", FakeSession)

    async def run():
        group = bench_class.Class("http://x", (0.0, 0.0), answers, move)

        async def pause(_, seconds):  # no waiting; stop after 40 answers
            await asyncio.sleep(0)
            if len(group.records) >= 40:
                group.stopping.set()
            return group.stopping.is_set()

        monkeypatch.setattr(bench_class, "pause", pause)
        await bench_class.learner(0, group)
        return group

    group = asyncio.run(run())
    solved = sum(1 for r in group.records if r.kind == "solved")
    assert solved >= 5, "a third of 40 answers are right"
    kinds = [o.kind for o in group.opens]
    if not move:
        assert FakeSession.opened == [("dprobs", None)] and kinds == ["arrival"]
        return
    assert kinds == ["arrival"] + ["move"] * solved
    pages = [page for page, _ in FakeSession.opened]
    assert pages == [("dprobs", "dh")[i % 2] for i in range(len(pages))]
    assert [cookie for _, cookie in FakeSession.opened] == [None] + ["id-0"] * solved
    assert all(o.editor is not None and o.done is not None for o in group.opens)
