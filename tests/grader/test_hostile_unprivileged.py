"""The hostile suites of fresh cases and of the gradebook again, as an ordinary user.

As root, this creates the user `ninjatest` if needed and re-runs the suites under it with
setpriv: learner code then runs in the sandbox's unprivileged mode, and an unreadable folder
really is unreadable. Run alone: `python -m pytest tests/grader/test_hostile_unprivileged.py`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from .test_cli import ROOT

USER = "ninjatest"
SUITES = ("tests/grader/test_hostile_fresh.py", "tests/grader/test_hostile_batch.py")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="already unprivileged: the suites run as is"),
    pytest.mark.skipif(not shutil.which("setpriv"), reason="setpriv (util-linux) is missing"),
]


@pytest.mark.timeout(1200)  # two suites that grade through the sandbox and the CLI
def test_the_hostile_suites_pass_as_an_ordinary_user():
    if subprocess.run(["id", USER], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "--create-home", USER], check=True)
    become = ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--clear-groups", "--"]
    probe = [*become, sys.executable, "-c", f"open({str(ROOT / 'grader' / '__init__.py')!r})"]
    if subprocess.run(probe, capture_output=True).returncode != 0:
        pytest.skip(f"{USER} cannot run {sys.executable} or read {ROOT}")
    env = {"PATH": os.defpath, "HOME": os.path.expanduser(f"~{USER}")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    command = [*become, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SUITES]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
    assert " skipped" in done.stdout, "the device case is root's only"
