"""What IT reads from a running server (app/server.py): /ready names every part ready, and
/metrics, parsed by prometheus_client's own parser, counts what a learner did in a real browser
(a wrong answer and a right one here; a training run in test_training.py; the classroom's
sign-ins, database errors and readiness through HAProxy in test_stack.py).

The session's server is shared: each test compares what it did with the counts before it (the
browser tests run one at a time, so nothing else grades meanwhile)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from .e2e_helpers import (
    OUTPUT,
    WAIT_MS,
    open_page,
    start_server,
    stop_server,
    type_and_submit,
    why_blank,
)
from .test_identity import DLOGPROBS, SOLVED, badge

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

WRONG = "dlogprobs = torch.zeros_like(logprobs)\n"
READY_SECONDS = 180  # a wait, not a bound: the sandbox and the scenarios start on a busy machine


def answer(url: str) -> tuple[int, dict]:
    """Return /ready's status and JSON body, whatever the status."""
    try:
        with urllib.request.urlopen(f"{url}/ready", timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as refused:
        return refused.code, json.load(refused)


def ready_within(url: str, seconds: float = READY_SECONDS, ready: bool = True) -> dict:
    """Return /ready's body once it says ready (or not, when told), asking every half second."""
    deadline = time.monotonic() + seconds
    while True:
        status, body = answer(url)
        if (status == 200) == ready:
            assert body["ready"] is ready, body
            return body
        assert time.monotonic() < deadline, f"/ready said {status}: {body}"
        time.sleep(0.5)


def scrape(url: str) -> dict[str, float]:
    """Return every sample of a server's /metrics, parsed by prometheus_client: the sample's
    name with its labels (`name{label="value"}`) -> its value."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
        text = response.read().decode()
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return found


def moved(before: dict[str, float], after: dict[str, float], prefix: str) -> dict[str, float]:
    """Return the samples of a prefix that changed between two scrapes, by how much."""
    return {
        k: after[k] - before.get(k, 0.0)
        for k in after
        if k.startswith(prefix) and after[k] != before.get(k, 0.0)
    }


def test_ready_names_every_part_and_the_metrics_count_two_gradings(server, page):
    parts = ready_within(server.url)["parts"]
    assert list(parts) == ["database", "schema", "sandbox", "exercises", "references"]
    assert parts["references"]["detail"].startswith("computed in "), parts
    assert parts["sandbox"]["detail"].startswith("2 of 2 zygotes running"), parts
    before = scrape(server.url)
    open_page(page, f"{server.url}/dlogprobs")
    type_and_submit(page, WRONG)
    page.get_by_text("Not yet.", exact=False).first.wait_for(timeout=WAIT_MS)
    type_and_submit(page, DLOGPROBS)
    badge(page, SOLVED)
    after = scrape(server.url)
    assert moved(before, after, "ninja_gradings_total") == {
        'ninja_gradings_total{outcome="not_solved"}': 1,
        'ninja_gradings_total{outcome="solved"}': 1,
    }
    timed = moved(before, after, "ninja_grading_seconds")
    assert timed["ninja_grading_seconds_count"] == 2 and timed["ninja_grading_seconds_sum"] > 0
    assert (
        moved(before, after, "ninja_sandbox_wait_seconds_count")["ninja_sandbox_wait_seconds_count"]
        >= 2
    ), "each grading ran in the sandbox at least once"
    assert after["ninja_sandbox_slots"] == 2 and after["ninja_sandbox_zygotes_alive"] == 2
    assert 0 <= after["ninja_sandbox_slots_busy"] <= 2 and after["ninja_sandbox_queue_depth"] >= 0
    assert after["ninja_active_sessions"] >= 1, "this page's session, connected"
    assert moved(before, after, "ninja_errors_total") == {}
    assert after["ninja_sign_ins_total"] == 0, "the local mode has no sign-in"
    assert after["process_resident_memory_bytes"] > 0
    with urllib.request.urlopen(f"{server.url}/lti/config.json", timeout=30) as response:
        lti = json.load(response)  # an LMS's launch is served beside the pages (issue 36)
    assert lti["target_link_uri"] == f"{server.url}/lti/launch", lti


def test_a_thread_dump_on_sigusr1_says_what_the_server_runs_and_it_goes_on(page, tmp_path):
    """A server of its own: the dump's frames name functions with "error" in them, and the
    shared server's log must stay clean (test_browser.py, test_training.py)."""
    own = start_server(tmp_path / "var", OUTPUT / "thread-dump.log", prove=False)
    try:
        open_page(page, own.url)
        found = why_blank(page, own.url)
        assert "Home" in found.split("its server's threads:")[0]  # the page's words
        assert "Thread 0x" in found.split("its server's threads:")[1]  # its first DUMP_CHARS
        whole = own.log_text()  # the main thread, serving, comes last: read the whole dump
        assert "Current thread 0x" in whole and "streamlit/web/server" in whole, whole[-3000:]
        with urllib.request.urlopen(f"{own.url}/_stcore/health", timeout=30) as response:
            assert response.status == 200
    finally:
        stop_server(own.process)
