"""The load benchmark's websocket client (bench/streamlit_client.py) against a real app.

bench/bench_class.py drives simulated learners with this client; if the app's pages, the editor
component's messages or Streamlit's protocol change, this test fails instead of the benchmark
silently timing nothing. One session opens an exercise page over the websocket, submits a wrong
answer and then the right one through the editor's messages, and gets each verdict back; the
app recorded both attempts. The auto-save before them redraws nothing of the page. A second
session given the first one's identity cookie (bench_class --move: a learner opening the next
exercise) is the same browser: its attempt goes to the same profile.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import importlib.util
import sqlite3
import sys

import pytest

from app.panels.workbench import SETTLED

from ..e2e.e2e_helpers import ROOT, start_server, stop_server

WRONG = "dprobs = 1 / 0"


def client_module():
    """Import bench/streamlit_client.py (bench/ is a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(
        "streamlit_client", ROOT / "bench" / "streamlit_client.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


async def wrong_then_right(client, url: str, right: str):
    session = client.StreamlitSession(url, "dprobs")
    try:
        await session.open(timeout=120)
        await asyncio.sleep(SETTLED + 0.1)  # a learner reads before typing
        drawn = session.elements
        await session.change(WRONG)
        session.auto_save_drew = session.elements - drawn
        wrong = await session.submit(WRONG, timeout=120)
        solved = await session.submit(right, timeout=120)
    finally:
        await session.close()
    return session, wrong, solved


@pytest.mark.slow
def test_a_session_submits_through_the_editor_and_gets_verdicts(tmp_path):
    client = client_module()
    right = (ROOT / "solutions" / "01_mlp" / "dprobs.py").read_text()
    data = tmp_path / "data dir" / "var"
    server = start_server(data, tmp_path / "server.log")
    try:
        # in a thread of its own: a browser test's Playwright may already run an event loop in
        # this thread of the test process (the processes take test files in any order)
        with concurrent.futures.ThreadPoolExecutor(1) as thread:
            talk = wrong_then_right(client, server.url, right)
            session, wrong, solved = thread.submit(asyncio.run, talk).result()
    finally:
        stop_server(server.process)
    assert session.editor_id.endswith("editor:dprobs:1"), session.editor_id
    assert session.fragment_id, "the editor is drawn in the work area's fragment"
    # an auto-save reruns only the notices above the editor (none here), not the work area
    # that holds the editor (whose run drew 9 elements: the editor, hints, badge, graph...)
    assert session.auto_save_drew == 0, session.auto_save_drew
    assert (wrong.kind, solved.kind) == ("not yet", "solved"), (wrong.text, solved.text)
    with contextlib.closing(sqlite3.connect(data / "progress.sqlite3")) as db:
        rows = db.execute(
            "SELECT code, solved FROM attempts WHERE exercise_id = 'dprobs' ORDER BY id"
        ).fetchall()
    assert rows == [(WRONG, 0), (right, 1)]


async def first_then_returning(client, url: str):
    """Open dprobs in a new browser, then dh in a new session of the same browser (its cookie);
    submit a wrong answer in each; return both sessions."""
    sessions = []
    for page in ("dprobs", "dh"):
        session = client.StreamlitSession(url, page)
        session.returning(sessions[0].cookie if sessions else None)
        try:
            await session.open(timeout=120)
            await session.submit(WRONG if page == "dprobs" else "dh = 1 / 0", timeout=120)
        finally:
            await session.close()
        sessions.append(session)
    return sessions


@pytest.mark.slow
def test_a_returning_session_is_the_same_browser(tmp_path):
    client = client_module()
    data = tmp_path / "data" / "var"
    server = start_server(data, tmp_path / "server.log")
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as thread:
            first, again = thread.submit(
                asyncio.run, first_then_returning(client, server.url)
            ).result()
    finally:
        stop_server(server.process)
    assert first.cookie, "a new browser's first page sets its identity cookie"
    assert again.cookie is None, "a browser that sent its cookie is known: no new identity"
    assert first.editor_at is not None and again.editor_at is not None
    with contextlib.closing(sqlite3.connect(data / "progress.sqlite3")) as db:
        rows = db.execute("SELECT exercise_id, profile_id FROM attempts ORDER BY id").fetchall()
        profiles = db.execute("SELECT count(*) FROM profiles").fetchone()[0]
    assert [exercise for exercise, _ in rows] == ["dprobs", "dh"]
    assert rows[0][1] == rows[1][1], rows
    assert profiles == 1


def forward(client, element_type: str, **fields):
    """Return a ForwardMsg that draws one new element of element_type with fields set."""
    message = client.ForwardMsg()
    element = getattr(message.delta.new_element, element_type)
    for name, value in fields.items():
        setattr(element, name, value)
    return message


def test_the_session_keeps_the_cookie_the_page_sets_and_when_the_editor_came():
    client = client_module()
    session = client.StreamlitSession("http://127.0.0.1:1", "dprobs")
    value = "3f2a." + "b" * 64
    script = (
        f"<script>document.cookie = 'ninja_learner={value}; path=/; max-age=1;"
        " samesite=strict';</script>"
    )
    session._handle(forward(client, "html", body="<p>document.cookie</p>"))
    assert session.cookie is None, "only the identity's script is the cookie"
    session._handle(forward(client, "html", body=script))
    assert session.cookie == value
    assert session.editor_at is None
    session._handle(forward(client, "component_instance", id="$$ID-abc-editor:dprobs:1"))
    assert session.editor_at is not None and session.editor_id.endswith("editor:dprobs:1")


def test_a_returning_session_sends_the_cookie_it_was_given():
    client = client_module()
    session = client.StreamlitSession("http://127.0.0.1:1", "dh")
    session.returning(None)
    assert "additional_headers" not in session.connect_options
    session.returning("3f2a.bb")
    assert session.connect_options["additional_headers"] == {"Cookie": "ninja_learner=3f2a.bb"}
