"""The hostile suites of fresh cases, of the gradebook and of uploads again, as an ordinary user.

As root, the `ordinary` fixture (tests/grader/conftest.py) creates the user `ninjatest` if
needed and builds a copy of the checkout with a venv that the user can read; the suites run
there under setpriv: learner code then runs in the sandbox's unprivileged mode, an unreadable
folder really is unreadable, and an upload's reader child runs as that user. Run alone:
`python -m pytest tests/grader/test_hostile_unprivileged.py`.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

SUITES = (
    "tests/grader/test_hostile_fresh.py",
    "tests/grader/test_hostile_batch.py",
    "tests/grader/test_hostile_uploads.py",
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="already unprivileged: the suites run as is"),
    pytest.mark.skipif(not shutil.which("setpriv"), reason="setpriv (util-linux) is missing"),
]


@pytest.mark.timeout(1800)  # three suites that grade through the sandbox, the CLI and uploads
def test_the_hostile_suites_pass_as_an_ordinary_user(ordinary):
    command = [*ordinary.become, ordinary.python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*command, *SUITES], cwd=ordinary.root, env=ordinary.env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
    assert " skipped" in done.stdout, "the device case is root's only"
