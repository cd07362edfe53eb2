"""The remedies checked by running the learner's code rewritten in the sandbox, again as an
ordinary user: tests/grader/feedback/test_rewrites_run.py run as `ninjatest` (the `reruns`
fixture of tests/grader/conftest.py, one process for every re-run suite). Run alone:
`python -m pytest tests/grader/feedback/test_unprivileged.py`.
"""

from __future__ import annotations

import pytest

from tests.grader.ordinary_user import AS_ORDINARY_USER

SUITES = ("tests/grader/feedback/test_rewrites_run.py",)

pytestmark = AS_ORDINARY_USER


@pytest.mark.timeout(3600)  # every re-run suite, in one process (`reruns`), on a busy machine
def test_the_rewrites_run_in_the_sandbox_as_an_ordinary_user(reruns):
    assert "skipped" not in reruns.of(SUITES).values(), "every test ran as the user"
