"""The sandbox and hostile suites again, as an ordinary user (CI runs as root).

As root, the `ordinary` fixture (tests/grader/conftest.py) creates the user `ninjatest` if
needed, and builds a copy of the checkout with a venv that the user can read, in a temporary
directory; the suites run there under setpriv. Nothing outside that directory changes mode.
Run alone: `python -m pytest tests/grader/sandbox/test_unprivileged.py -q`.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from ..ordinary_user import AS_ORDINARY_USER
from .conftest import USR_LOCAL_COPY

SUITES = (
    "tests/grader/sandbox/test_hostile.py",
    "tests/grader/sandbox/test_confinement.py",
    "tests/grader/sandbox/test_isolation.py",
    "tests/grader/sandbox/test_lifecycle.py",
    "tests/grader/sandbox/test_limits.py",
    "tests/grader/sandbox/test_run.py",
    "tests/grader/sandbox/test_seccomp.py",
    "tests/grader/sandbox/training/test_stream.py",
    "tests/grader/sandbox/training/test_loop.py",
    "tests/grader/sandbox/test_autograd_classes.py",
    "tests/grader/test_hostile_grading.py",
)

pytestmark = AS_ORDINARY_USER


@pytest.fixture
def usr_local_copy():
    """Make a file under /usr/local that the ordinary user can read (it cannot make one)."""
    top = Path(tempfile.mkdtemp(prefix="bpn-copy-", dir="/usr/local"))
    try:
        top.chmod(0o755)
        (top / "progress.db").write_text("secret answers")
        (top / "progress.db").chmod(0o644)
        yield top / "progress.db"
    finally:
        shutil.rmtree(top)


@pytest.mark.timeout(1800)  # ten suites in one test, on a machine that may be busy
def test_the_sandbox_suites_pass_as_an_ordinary_user(ordinary, usr_local_copy):
    ordinary.run_suites(SUITES, {USR_LOCAL_COPY: str(usr_local_copy)})
