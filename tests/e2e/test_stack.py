"""In real browsers, through HAProxy: the classroom stack of `deploy/stack up` (PostgreSQL, the
OpenID Connect test provider, two replicas, HAProxy, a training worker; all on loopback), started
once for this module exactly as an operator starts it, and stopped with `deploy/stack down`.

Two learners sign in through the proxy and land on different replicas (the proxy names the
replica in a response header); PostgreSQL stopped takes both replicas out of the proxy (their
/ready says why: the database) and started again puts them back; a notebook uploaded through
the proxy is graded (the upload reaches the replica that holds the page's session: affinity); a
replica killed with SIGKILL costs its learner a reload, signed in, with nothing lost (the work
is in PostgreSQL); a training run started through the proxy goes to the worker, and when the
worker is killed with SIGKILL mid-run the page says the run was interrupted, and the learner
starts it again.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ..grader.fixtures import lecture_notebook as lecture
from .e2e_helpers import OUTPUT, ROOT, WAIT_MS, open_page, type_and_submit
from .stack_helpers import (
    REPLICA_HEADER,
    on_other_replica,
    operator_tools,
    provider_url,
    replica_of,
    stack,
)
from .test_classroom import sign_in
from .test_identity import DLOGPROBS, SOLVED, badge
from .test_operations import ready_within, scrape
from .test_training import SECTION, TIMEOUT_MS, _start

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

UPLOAD_MS = 240_000  # a whole notebook graded on a busy machine
DATABASE_DOWN = "The progress database is not answering right now"  # app/main.py
PROXY_DOWN = "The course is not answering right now"  # deploy/haproxy.cfg, no replica ready
REPLICAS = {"replica1", "replica2"}


def test_the_stack_reports_every_part_answering(running):
    status = stack("status", "--dir", running["folder"])
    assert status.returncode == 0, status.stdout + status.stderr
    names = [line.split()[0] for line in status.stdout.splitlines()]
    assert names == ["postgres", "provider", "replica1", "replica2", "haproxy", "worker"], (
        status.stdout
    )
    assert all(line.split()[1:] == ["running", "answering"] for line in status.stdout.splitlines())


def replicas(state: dict) -> list[str]:
    """Return each replica's own address (not the proxy's)."""
    return [f"http://127.0.0.1:{port}" for port in state["ports"]["replicas"]]


def through_proxy(url: str) -> tuple[int, str | None, str]:
    """Return a fresh request's status through the proxy (no cookie), the replica that answered
    (None: the proxy itself) and the body."""
    try:
        with urllib.request.urlopen(f"{url}/", timeout=30) as response:
            return response.status, response.headers.get(REPLICA_HEADER), response.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers.get(REPLICA_HEADER), refused.read().decode()


def proxy_until(url: str, done, seconds: float = 120) -> tuple[int, str | None, str]:
    """Ask the proxy until done(status, replica) holds; return the last answer."""
    deadline = time.monotonic() + seconds  # a wait, not a bound: its checks are 2 s apart
    while not done(*(found := through_proxy(url))[:2]):
        assert time.monotonic() < deadline, found[:2]
        time.sleep(0.5)
    return found


def test_a_database_restart_costs_a_try_again_and_loses_nothing(running, browser):
    """PostgreSQL restarted during a class: each replica's /ready says 503 naming the database,
    HAProxy takes both out and says so itself to a new visitor, a page already open says "try
    again" (no traceback); once the database is back both are ready and in again, serving by
    themselves, with nothing lost."""
    url, provider = running["url"], provider_url(running)
    ada = browser.new_context(viewport={"width": 1400, "height": 1800}).new_page()
    sign_in(ada, url, provider, "ada")
    ada_replica = replica_of(ada, url)
    bob = on_other_replica(browser, running, ada_replica)
    sign_in(bob, url, provider, "bob")
    open_page(ada, f"{url}/dlogprobs")
    type_and_submit(ada, DLOGPROBS)
    badge(ada, SOLVED)

    tools, folder = operator_tools(), Path(running["folder"])
    tools.stop_postgres(running["postgres"])
    try:
        for replica in replicas(running):
            body = ready_within(replica, ready=False)
            assert body["failing"] == ["database", "schema"], body
            assert "did not answer" in body["parts"]["database"]["detail"]
        status, replica, page_text = proxy_until(url, lambda status, replica: replica is None)
        assert status == 503 and PROXY_DOWN in page_text  # both out: the proxy's own page
        for page in (ada, bob):  # one learner on each replica, on the page open before
            page.locator("[data-testid='stSidebarNav'] a[href$='/dprobs']").click()
            page.get_by_text(DATABASE_DOWN).wait_for(timeout=WAIT_MS)
            assert "Traceback" not in page.locator("body").inner_text()
        ada.screenshot(path=OUTPUT / "stack-database-down.png", full_page=True)
    finally:
        port = running["ports"]["postgres"]
        tools.start_postgres(folder, port, tools.database_password(folder))

    for replica in replicas(running):
        ready_within(replica)
        counted = scrape(replica)  # what each replica saw: its learner signed in, the outage
        assert counted["ninja_sign_ins_total"] >= 1, replica
        assert counted['ninja_errors_total{kind="database"}'] >= 1, replica
    seen: set[str | None] = set()  # both back in: round robin over fresh visitors
    proxy_until(url, lambda status, replica: seen.add(replica) or seen >= REPLICAS)
    open_page(ada, f"{url}/dlogprobs")  # the attempt made before the restart is kept
    badge(ada, SOLVED)
    open_page(bob, f"{url}/dlogprobs")  # and the other replica records again
    type_and_submit(bob, DLOGPROBS)
    badge(bob, SOLVED)
    status = stack("status", "--dir", running["folder"])
    assert status.returncode == 0, status.stdout + status.stderr  # the worker came through too


def test_learners_on_two_replicas_keep_their_work_when_one_is_killed(running, browser, tmp_path):
    url, provider = running["url"], provider_url(running)
    first = browser.new_context(viewport={"width": 1400, "height": 1800})
    ada = first.new_page()
    sign_in(ada, url, provider, "ada")
    ada_replica = replica_of(ada, url)
    bob = on_other_replica(browser, running, ada_replica)
    sign_in(bob, url, provider, "bob")
    bob_replica = replica_of(bob, url)
    assert {ada_replica, bob_replica} == {"replica1", "replica2"}

    open_page(ada, f"{url}/dlogprobs")
    type_and_submit(ada, DLOGPROBS)
    badge(ada, SOLVED)

    notebook = lecture.write(lecture.build(), tmp_path / "lecture.ipynb")
    open_page(bob, f"{url}/whole_pass")
    bob.get_by_text("Or grade your own notebook").wait_for(timeout=WAIT_MS)
    bob.locator("input[type='file']").set_input_files(str(notebook))
    bob.get_by_text("All 4 exercises of the notebook are solved.").wait_for(timeout=UPLOAD_MS)
    bob.screenshot(path=OUTPUT / "stack-notebook.png", full_page=True)

    os.killpg(running["parts"][ada_replica]["pid"], signal.SIGKILL)
    open_page(ada, f"{url}/dlogprobs")  # a reload: the proxy redispatches to the live replica
    ada.get_by_text("Signed in as Ada Lovelace").wait_for(timeout=WAIT_MS)
    assert replica_of(ada, url) == bob_replica
    badge(ada, SOLVED)
    ada.screenshot(path=OUTPUT / "stack-after-kill.png", full_page=True)


def start_worker(state: dict, log: Path) -> subprocess.Popen:
    """Start another training worker on the stack's database, as a worker machine would."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NINJA_", "STREAMLIT_"))}
    env = {**clean, "NINJA_MODE": "classroom", "NINJA_DATABASE_URL": state["database_url"]}
    env["NINJA_DATA_DIR"] = str(Path(state["folder"]) / "worker")
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "app.training"], cwd=ROOT, env=env, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


def test_a_run_whose_worker_is_killed_ends_interrupted_and_starts_again(running, browser):
    url, provider = running["url"], provider_url(running)
    page = browser.new_context(viewport={"width": 1400, "height": 1800}).new_page()
    sign_in(page, url, provider, "bob")
    open_page(page, f"{url}/training")
    page.get_by_text("The loop around your code").wait_for(timeout=TIMEOUT_MS)
    type_and_submit(page, SECTION)
    try:
        page.get_by_text("All seven gradients match autograd").wait_for(timeout=TIMEOUT_MS)
    finally:
        page.screenshot(path=OUTPUT / "stack-training-checked.png", full_page=True)
    _start(page)
    running_now = page.locator("[data-testid='stProgress']", has_text="of 200,000")
    running_now.wait_for(timeout=TIMEOUT_MS)  # the worker streams its progress

    os.kill(running["parts"]["worker"]["pid"], signal.SIGKILL)  # kill -9 of the worker alone
    page.get_by_text("Training was interrupted at step").wait_for(timeout=TIMEOUT_MS)
    page.screenshot(path=OUTPUT / "stack-training-interrupted.png", full_page=True)

    _start(page)  # no worker: the run waits in the queue
    page.get_by_text("position 1 in the queue").wait_for(timeout=TIMEOUT_MS)
    worker = start_worker(running, OUTPUT / "stack-second-worker.log")
    try:
        running_now.wait_for(timeout=TIMEOUT_MS)
        page.get_by_role("button", name="Stop").click()
        page.get_by_text("as you asked").wait_for(timeout=TIMEOUT_MS)
        page.screenshot(path=OUTPUT / "stack-training-restarted.png", full_page=True)
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
