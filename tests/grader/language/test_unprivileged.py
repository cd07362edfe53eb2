"""The exercise language's hostile suite and the run-time allow-list again, as an ordinary user.

As root, the `ordinary` fixture (tests/grader/conftest.py) builds a copy of the checkout that
the user `ninjatest` can read; the suites run there under setpriv, so learner code runs in the
sandbox's unprivileged mode.
Run alone: `python -m pytest tests/grader/language/test_unprivileged.py`.
"""

from __future__ import annotations

import pytest

from ..ordinary_user import AS_ORDINARY_USER

SUITES = (
    "tests/grader/language/test_hostile_classes.py",
    "tests/grader/sandbox/test_allowed_operations.py",
)

pytestmark = AS_ORDINARY_USER


@pytest.mark.timeout(3600)  # every re-run suite, in one process (`reruns`), on a busy machine
def test_the_language_suites_pass_as_an_ordinary_user(reruns):
    reruns.of(SUITES)
