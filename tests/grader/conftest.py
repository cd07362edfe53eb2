"""Fixtures shared by the grader tests: the lecture's data and the scenario runs."""

from __future__ import annotations

from pathlib import Path

import pytest

import data
from grader import Grader
from grader.course.exercises import EXERCISES_DIR, discover
from grader.grading.cases import Runs

from .bank_helpers import GradedBanks

NAMES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "names.txt"


@pytest.fixture(scope="session")
def names_dataset():
    """Return the lecture's names.txt dataset, or skip when ../shared is absent."""
    if not NAMES.exists():
        pytest.skip(f"the lecture's names.txt is not at {NAMES}")
    words = NAMES.read_text(encoding="utf-8").splitlines()
    return data.build_dataset(words, 3, name="names")


@pytest.fixture(scope="session")
def default_data():
    """Return the embedded default dataset."""
    return data.default_dataset()


@pytest.fixture(scope="session")
def small_data(default_data):
    """Return a dataset of the default one's first 1,000 words (5,535 training contexts): for a
    run whose subject is not its figures, since a finished run is evaluated on the whole training
    set (175,591 contexts: 3 s at load 7)."""
    return data.build_dataset(default_data.words[:1000], 3, name="small")


@pytest.fixture(scope="session")
def bank_grader(default_data, catalog):
    """Return the grader of the answer banks (tests/grader/bank_helpers.py)."""
    return Grader(default_data, catalog)


@pytest.fixture(scope="session")
def graded_bank(bank_grader):
    """Return the banks' results: `graded_bank(path)` grades a bank once per process."""
    return GradedBanks(bank_grader)


@pytest.fixture(scope="session")
def catalog():
    """Return every exercise the project ships."""
    return discover(EXERCISES_DIR)


@pytest.fixture(scope="session")
def mlp(catalog):
    """Return the lecture's scenario."""
    return catalog.scenario("01_mlp")


@pytest.fixture(scope="session")
def runs(default_data):
    """Return scenario runs on the default dataset."""
    return Runs(default_data)


@pytest.fixture(scope="session")
def reference_section(catalog):
    """Return Exercise 4's backward section made of the reference solutions."""
    from grader.training.section import PARTS, compose

    solved = {exercise_id: catalog.get(exercise_id).solution() for exercise_id, _ in PARTS}
    return compose(solved, solved)


@pytest.fixture(scope="session")
def model():
    """Return the lecture's MLP as Exercise 4 runs it, derived from the shipped scenario."""
    from grader.training.model import lecture_model

    return lecture_model()


@pytest.fixture(scope="session")
def program(model):
    """Return Exercise 4's loop program (INIT and STEP) of the lecture's MLP."""
    return model.program()


@pytest.fixture(scope="session")
def ordinary():
    """Return how to run this checkout as an ordinary user, from a copy it can read.

    Needs root (to become the user) and setpriv; skips, saying why, when no Python of this
    version runs for that user (tests/grader/ordinary_user.py says what is built, and where).
    """
    import os
    import shutil

    from .ordinary_user import NoInterpreter, build, temporary_top

    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv(1) to run as an ordinary user")
    top = temporary_top()
    try:
        try:
            yield build(Path(__file__).resolve().parents[2], top)
        except NoInterpreter as missing:
            pytest.skip(str(missing))
    finally:
        shutil.rmtree(top)


@pytest.fixture(scope="session")
def reruns(request, ordinary):
    """Run every test file that this session's re-run tests name (their modules' SUITES) again
    as the ordinary user, all in one pytest process; return its outcomes (ordinary_user.Rerun).

    One process, not one per re-run test: each start imports torch and starts its own sandbox,
    and a PostgreSQL server for the suites that use one. The sandbox suites get a readable file
    under /usr/local that the user could not make (sandbox/conftest.py: USR_LOCAL_COPY).
    """
    import shutil
    import tempfile

    from ..conftest import LOCK, lock_path
    from .ordinary_user import suites_of
    from .sandbox.conftest import USR_LOCAL_COPY

    top = Path(tempfile.mkdtemp(prefix="bpn-copy-", dir="/usr/local"))
    try:
        top.chmod(0o755)
        (top / "progress.db").write_text("secret answers")
        (top / "progress.db").chmod(0o644)
        env = {USR_LOCAL_COPY: str(top / "progress.db")}
        if (lock := lock_path()) is not None:  # its host-wide tests take turns with this run's
            env[LOCK] = str(lock)
        yield ordinary.run_suites(suites_of(request.session.items), env)
    finally:
        shutil.rmtree(top)
