"""A score sent after each solve (app/classroom/lti/later.py): a learner launched from the
platform of our own (lms_platform.py) solves an exercise on its page (an AppTest of the
classroom mode, signed in with the claims the launch set); the replica queues a job, and the
classroom's real worker (`python -m app.training`, started here, its LTI key from a secrets
file) sends the score: the platform holds it, with nobody pressing "Sync grades"."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from app import services
from app.classroom.lti import later
from app.storage import Attempt, Facts, open_store
from app.training import tasks

from ..app_helpers import SOLVED, page_test, submit
from .lms_platform import ISSUER, launch, login, user_of

ROOT = Path(__file__).resolve().parents[3]
PATIENCE = 30  # seconds before a wait gives up: a hang guard (the worker imports torch)
ADA = f"{ISSUER} user-42"

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def launched(app_env, fake, tool, platform, database, monkeypatch) -> dict:
    """Launch Ada from the platform; run the app in the classroom mode on the tool's database;
    return the claims the launch signed her in with."""
    asked = login(tool, platform)
    opened = launch(tool, asked["state"], platform.id_token(asked["nonce"]))
    assert opened.status_code == 303, opened.text
    monkeypatch.setenv("NINJA_MODE", "classroom")
    monkeypatch.setenv("NINJA_DATABASE_URL", database)
    return user_of(opened)


@pytest.fixture
def worker(database, tool_key, tmp_path):
    """Start the classroom's worker on the tool's database, the tool's key in its secrets;
    yield its log file; kill it (and its group) at the end."""
    pem, kid = tool_key
    secrets = tmp_path / "worker secrets.toml"
    secrets.write_text(f'[lti]\nkid = "{kid}"\nprivate_key = """\n{pem}"""\n')
    env = {**os.environ, "NINJA_DATABASE_URL": database, "NINJA_DATA_DIR": str(tmp_path / "w")}
    env["NINJA_SECRETS_FILE"] = str(secrets)
    env.pop("NINJA_MODE", None)
    log = tmp_path / "worker.log"
    with log.open("w") as out:
        started = subprocess.Popen(
            [sys.executable, "-m", "app.training"], cwd=ROOT, env=env, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    yield log
    with contextlib.suppress(ProcessLookupError):
        os.killpg(started.pid, signal.SIGKILL)
    started.wait()


def _scores_of(platform, item: str) -> list[dict]:
    """Return the scores the platform holds for an item's line item."""
    found = [i["id"] for i in platform.lineitems if i["resourceId"] == item]
    return [s for line in found for s in platform.scores.get(line, [])]


def test_a_solve_reaches_the_lms_by_the_worker_without_sync(launched, platform, worker, database):
    at = page_test("dlogprobs")
    at.user = launched
    at = submit(at.run(), f"{SOLVED}\n")
    assert not at.exception, at.exception
    deadline = time.monotonic() + PATIENCE
    while not _scores_of(platform, "dlogprobs") and time.monotonic() < deadline:
        time.sleep(0.2)
    (score,) = _scores_of(platform, "dlogprobs")
    assert (score["userId"], score["scoreGiven"], score["scoreMaximum"]) == ("user-42", 1, 1)
    store = open_store(database, services.store().course)
    pushed = store.lti.last_push(ADA, "dlogprobs")
    assert pushed is not None and pushed.ok, worker.read_text()


def test_a_mark_the_lms_took_is_not_sent_again(tool, platform, tool_key, database):
    asked = login(tool, platform)
    assert launch(tool, asked["state"], platform.id_token(asked["nonce"])).status_code == 303
    store = open_store(database, "course-of-later")
    profile = store.learners.add_profile("learner", owner=ADA)
    solved = Facts(ran=True, status="solved")
    store.work.record_attempt(profile, Attempt("dh", "x", True, "ok", 0, 0, "d", 1.0, solved))
    catalog = services.declared()
    (first,) = later.push_item(store, catalog, tool_key, ADA, "dh")
    assert first.ok and (first.points, first.out_of) == (1, 1)
    assert later.push_item(store, catalog, tool_key, ADA, "dh") == [], "the LMS has it"


def test_nobody_who_came_from_no_lms_gets_a_job(database, tmp_path):
    store = open_store(database, "course-of-later")
    assert later.Later(store).after("https://id.uni.test oidc-only", ["dh"]) == []
    local = open_store(f"sqlite:///{tmp_path}/progress.sqlite3")
    assert later.Later(local).after(ADA, ["dh"]) == [], "the local mode: no queue"


async def _silent_worker_scenario(url: str, store) -> tuple:
    """Take a push job as a worker does, then go silent; queue the same push again; reap.
    Return the job taken, the job fetched while it is held, the jobs reaped, and the job
    fetched after."""
    app = tasks.worker_app(url, lambda context, run_id: None)
    app.task(name=later.TASK, queue=later.QUEUE)(lambda identity, item, course: None)
    async with app.open_async():
        worker = await app.job_manager.register_worker()
        taken = await app.job_manager.fetch_job([later.QUEUE], worker)
        later.Later(store).after(ADA, ["dh"])  # a later solve of the same item
        held = await app.job_manager.fetch_job([later.QUEUE], worker)
        ended = await tasks.reap(app, -1, later.QUEUE, later.TASK)  # every heartbeat is old
        freed = await app.job_manager.fetch_job([later.QUEUE], worker)
    return taken, held, ended, freed


def test_a_push_whose_worker_went_silent_is_reaped_and_frees_the_next(tool, platform, database):
    asked = login(tool, platform)
    assert launch(tool, asked["state"], platform.id_token(asked["nonce"])).status_code == 303
    store = open_store(database, "course-of-reaping")
    (job_id,) = later.Later(store).after(ADA, ["dh"])
    with ThreadPoolExecutor(max_workers=1) as thread:  # an event loop of its own (Playwright's)
        taken, held, ended, freed = thread.submit(
            asyncio.run, _silent_worker_scenario(database, store)
        ).result()
    assert taken.id == job_id and taken.task_kwargs["course"] == "course-of-reaping"
    assert held is None, "the same learner's item waits for the push before it (its lock)"
    assert ended == [job_id] and freed is not None and freed.id != job_id


@pytest.mark.slow
def test_a_regrade_that_records_a_verdict_queues_its_push(
    tool, platform, database, tmp_path, monkeypatch, capsys
):
    """`python -m app.regrade --apply` records new verdicts; a learner who came from an LMS
    gets a push job for each item it recorded, as a solve on the page does (the worker sends
    the mark the course's policy then gives), and nobody else does."""
    from app import regrade
    from grader.sandbox import default_sandbox

    asked = login(tool, platform)
    assert launch(tool, asked["state"], platform.id_token(asked["nonce"])).status_code == 303
    course = tmp_path / "a course"
    shutil.copytree(ROOT / "exercises" / "02_layernorm", course / "02_layernorm")
    shutil.copytree(ROOT / "solutions" / "02_layernorm", course / "solutions" / "02_layernorm")
    (course / "course.toml").write_text('id = "ln-lti"\ntitle = "LayerNorm"\n')
    store = open_store(database, "ln-lti")
    right = Attempt("dxhat", "dxhat = gamma * dy\n", True, "ok", 0.1, 9.0, "default", 1.7e9,
                    Facts(True, "", "", "solved"), "an-older-version")  # fmt: skip
    store.work.record_attempt(store.learners.add_profile("ada", owner=ADA), right)
    store.work.record_attempt(store.learners.add_profile("bo", owner="oidc bo"), right)
    before = _pushes_queued(store, ADA, "dxhat")

    monkeypatch.chdir(ROOT)
    limits = default_sandbox().limits
    try:
        code = regrade.main(["--exercises", str(course), "--database", database, "--apply"])
    finally:
        default_sandbox().limits = limits
    assert code == 0, capsys.readouterr()
    assert "2 new verdicts recorded" in capsys.readouterr().out
    assert _pushes_queued(store, ADA, "dxhat") == before + 1
    assert _pushes_queued(store, "oidc bo", "dxhat") == 0, "no LMS, no job"


def _pushes_queued(store, identity: str, item: str) -> int:
    """Return how many LTI push jobs name this learner's item."""
    with store.engine.connect() as db:
        return db.exec_driver_sql(
            "SELECT count(*) FROM procrastinate_jobs WHERE task_name = %s"
            " AND args->>'identity' = %s AND args->>'item' = %s",
            (later.TASK, identity, item),
        ).scalar_one()
