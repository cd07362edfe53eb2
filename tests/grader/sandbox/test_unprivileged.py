"""The sandbox and hostile suites again, as an ordinary user (CI runs as root).

As root, this creates the user `ninjatest` if needed and re-runs the suites under it with
setpriv. Run alone: `python -m pytest tests/grader/sandbox/test_unprivileged.py -q`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from grader.sandbox.client import ROOT

from .conftest import USR_LOCAL_COPY

USER = "ninjatest"
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

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="already unprivileged: the suites run as is"),
    pytest.mark.skipif(not shutil.which("setpriv"), reason="setpriv (util-linux) is missing"),
]


@pytest.fixture(scope="module")
def user() -> list[str]:
    """Create the unprivileged user if needed; return the setpriv prefix that becomes it."""
    if subprocess.run(["id", USER], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--create-home", USER], check=True)
    return ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--clear-groups", "--"]


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
def test_the_sandbox_suites_pass_as_an_ordinary_user(user, usr_local_copy):
    probe = [*user, sys.executable, "-c", f"open({str(ROOT / 'grader' / '__init__.py')!r})"]
    if subprocess.run(probe, capture_output=True).returncode != 0:
        reason = f"{USER} cannot run {sys.executable} or read {ROOT}"
        if os.environ.get("BACKPROP_TEST_UNPRIVILEGED") == "required":
            pytest.fail(reason + " (CI requires this run: see .ci/run)")
        pytest.skip(reason)
    home = os.path.expanduser(f"~{USER}")
    env = {"PATH": os.defpath, "HOME": home, "PYTHONDONTWRITEBYTECODE": "1"}
    env[USR_LOCAL_COPY] = str(usr_local_copy)
    command = [*user, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SUITES]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
