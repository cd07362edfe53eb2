"""The feedback's banks graded once per test process: every answer of tests/grader/bank/*.toml
and of this folder's bank.toml (tests/grader/bank_helpers.py), with the grader that graded them
(its sandbox runs the learner code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..bank_helpers import BANKS, WHOLE_PASS, answers  # noqa: F401 (test_trust_bank's)

HERE = Path(__file__).parent


@pytest.fixture(scope="session")
def graded_banks(graded_bank):
    """Return (answer, result) for every answer of every bank."""
    return [pair for path in BANKS for pair in graded_bank(path)]


@pytest.fixture(scope="session")
def grading_errors(graded_bank, graded_banks):
    """Return the errors the grader logged while it graded every bank."""
    return graded_bank.errors
