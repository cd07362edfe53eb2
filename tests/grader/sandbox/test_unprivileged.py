"""The sandbox and hostile suites again, as an ordinary user (CI runs as root).

As root, the `ordinary` fixture (tests/grader/conftest.py) creates the user `ninjatest` if
needed, and builds a copy of the checkout with a venv that the user can read, in a temporary
directory; the suites run there under setpriv (the `reruns` fixture: one pytest process for
every re-run test of the session, each test then checks its own files). Nothing outside that
directory changes mode.
Run alone: `python -m pytest tests/grader/sandbox/test_unprivileged.py -q`.
"""

from __future__ import annotations

import pytest

from ..ordinary_user import AS_ORDINARY_USER

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
    "tests/grader/grading/test_hostile_grading.py",
)

pytestmark = AS_ORDINARY_USER


@pytest.mark.timeout(3600)  # every re-run suite, in one process (`reruns`), on a busy machine
def test_the_sandbox_suites_pass_as_an_ordinary_user(reruns):
    reruns.of(SUITES)
