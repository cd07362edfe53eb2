"""Issue 25's commands that run learner code, again as an ordinary user: `python -m app.regrade`
on a real progress database, and a new course made, validated and graded for a roster.

As root, the `ordinary` fixture (tests/grader/conftest.py) builds a copy of the checkout that
the user `ninjatest` can read, and the suites run there under setpriv, so the sandbox runs in
its unprivileged mode. Run alone: `python -m pytest tests/grader/test_course_unprivileged.py`.
"""

from __future__ import annotations

import pytest

from .ordinary_user import AS_ORDINARY_USER

SUITES = ("tests/app/regrade/test_regrade.py", "tests/grader/cli/test_new_course.py")

pytestmark = AS_ORDINARY_USER


@pytest.mark.timeout(3600)  # every re-run suite, in one process (`reruns`), on a busy machine
def test_regrade_and_a_new_course_pass_as_an_ordinary_user(reruns):
    assert "skipped" not in reruns.of(SUITES).values(), "every test ran as the user"
