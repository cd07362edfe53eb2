"""The classroom's training worker, again as an ordinary user: tests/app/training/test_worker.py
(real PostgreSQL, real `python -m app.training` processes training in their sandbox) run as
`ninjatest`.

As root, the `ordinary` fixture (tests/grader/conftest.py) builds a copy of the checkout that
the user can read, and the suite runs there under setpriv: the worker, its sandboxed trainer and
the test's PostgreSQL all run as that user. Run alone:
`python -m pytest tests/grader/test_worker_unprivileged.py`.
"""

from __future__ import annotations

import pytest

from .ordinary_user import AS_ORDINARY_USER

SUITES = ("tests/app/training/test_worker.py",)

pytestmark = AS_ORDINARY_USER


@pytest.mark.timeout(3600)  # every re-run suite, in one process (`reruns`), on a busy machine
def test_the_worker_suite_passes_as_an_ordinary_user(reruns):
    assert "skipped" not in reruns.of(SUITES).values(), "every test ran as the user"
