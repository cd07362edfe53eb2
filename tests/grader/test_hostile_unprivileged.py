"""The hostile suites of fresh cases, of the gradebook and of uploads again, as an ordinary user.

As root, the `ordinary` fixture (tests/grader/conftest.py) creates the user `ninjatest` if
needed and builds a copy of the checkout with a venv that the user can read; the suites run
there under setpriv: learner code then runs in the sandbox's unprivileged mode, an unreadable
folder really is unreadable, and an upload's reader child runs as that user. Run alone:
`python -m pytest tests/grader/test_hostile_unprivileged.py`.
"""

from __future__ import annotations

import pytest

from .ordinary_user import AS_ORDINARY_USER

SUITES = (
    "tests/grader/grading/test_hostile_fresh.py",
    "tests/grader/gradebook/test_hostile_batch.py",
    "tests/grader/notebook/test_hostile_uploads.py",
)

pytestmark = AS_ORDINARY_USER


@pytest.mark.timeout(3600)  # every re-run suite, in one process (`reruns`), on a busy machine
def test_the_hostile_suites_pass_as_an_ordinary_user(reruns):
    assert "skipped" in reruns.of(SUITES).values(), "the device case is root's only"
