"""Fixtures for the app tests: a temporary data directory, the plain editor, a fake grader.

Pages only render what the grader returns, so most tests replace `services.grader` with
app_helpers.FakeGrader, whose answers are chosen by a marker comment in the submitted code.
"""

from __future__ import annotations

import shutil

import pytest

from app import services
from app.config import identity
from grader.course.exercises import EXERCISES_DIR, SOLUTIONS_DIR

from .app_helpers import BROWSER, FakeGrader


@pytest.fixture(scope="session", autouse=True)
def components_scanned_once():
    """Scan the installed packages for Streamlit components once per run, not per AppTest.

    Each new AppTest reads the metadata of every installed distribution to find Streamlit's v2
    components (0.5 s, 1.2 s at load 10; 86% of a test that draws six pages); the packages do not
    change during a run. Each AppTest still registers every component found.
    """
    from streamlit.components.v2 import manifest_scanner

    found = manifest_scanner.scan_component_manifests()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(manifest_scanner, "scan_component_manifests", lambda **_: list(found))
        yield


@pytest.fixture(autouse=True)
def all_layers_on(monkeypatch):
    """Report every sandbox layer on and every exercise proven, and wait for the scenarios to
    run, so that rendering a page starts no sandbox nor warm-up and serves every exercise at once
    (tests/app/services/test_proofs.py runs the proofs for real, screens/test_checking.py the
    waits)."""
    monkeypatch.setattr(services, "missing_layers", lambda: {})
    monkeypatch.setattr(services, "start_sandbox", lambda: None)
    monkeypatch.setattr(services, "start_warmup", lambda: None)  # test_services.py runs it
    monkeypatch.setattr(
        services, "ran_catalog", lambda wait=True: services._catalog(*services._version())
    )
    monkeypatch.setattr(services, "proofs_failed", lambda: {})
    monkeypatch.setattr(services, "proofs_pending", lambda: set())


@pytest.fixture
def app_env(tmp_path, monkeypatch, browser):
    """Point the app at a fresh data directory and the plain editor; return the directory.

    Every AppTest is then the same browser (`browser`), whose identity cookie is already set.
    """
    monkeypatch.setenv("NINJA_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("NINJA_EDITOR", "plain")
    monkeypatch.delenv("NINJA_DATABASE_URL", raising=False)
    monkeypatch.delenv("NINJA_EXERCISES_DIR", raising=False)
    monkeypatch.delenv("NINJA_REVEAL_AFTER", raising=False)
    browser["cookie"] = identity.sign(BROWSER, services.identity_secret())
    return tmp_path / "var"


@pytest.fixture
def browser(monkeypatch) -> dict:
    """Return the cookie jar of the browser that AppTests stand for; a test may change it."""
    jar: dict = {"cookie": None}
    monkeypatch.setattr(identity, "browser_cookie", lambda: jar["cookie"])
    return jar


@pytest.fixture
def fake(app_env, monkeypatch):
    """Replace the grader with FakeGrader; return it (it records what was graded)."""
    grader = FakeGrader()
    monkeypatch.setattr(services, "grader", lambda source: grader)
    return grader


@pytest.fixture
def broken_exercises(tmp_path, monkeypatch):
    """Copy the exercises with one malformed file added; point the app at the copy."""
    root = tmp_path / "exercises"
    shutil.copytree(EXERCISES_DIR, root)
    shutil.copytree(SOLUTIONS_DIR, tmp_path / "solutions")  # where course.toml says
    (root / "01_mlp" / "99_broken.toml").write_text('title = "broken"\nfavourite = 3\n')
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(root))
    return root


@pytest.fixture
def instructor(monkeypatch):
    """Run the local mode as its instructor (`NINJA_INSTRUCTOR=1`): the preview, the Dashboard,
    the Problems page; the default is a learner's copy."""
    monkeypatch.setenv("NINJA_INSTRUCTOR", "1")
