"""Which recorded summaries say that the code ran: the rule behind offering a reveal."""

from __future__ import annotations

import pytest

from grader.feedback import voice as feedback
from grader.sandbox.verdict import MESSAGES


@pytest.mark.parametrize(
    ("case", "summary", "ran"),
    [
        ("values", feedback.inaccurate("dh", 0.1, (0, 1), (1e-8, 1e-5)), True),
        ("shape", feedback.wrong_shape("dh", (32,), (32, 64)), True),
        ("not a tensor", feedback.not_defined("dh"), True),
        ("solved", feedback.looks_good("dh", 1e-9), True),
        ("raised", feedback.raised("ZeroDivisionError", 2), False),
        ("syntax", feedback.syntax_error("invalid syntax", 1, 4), False),
        ("autograd", feedback.uses_autograd(".backward", 3), False),
        ("unreadable", feedback.unreadable("it is not text"), False),
        ("grader fault", feedback.GRADER_FAULT, False),
    ],
)
def test_a_summary_says_whether_the_code_ran(case, summary, ran):
    assert feedback.ran(summary) is ran


@pytest.mark.parametrize("status", ["cpu_limit", "wall_limit", "memory_limit", "crashed"])
def test_the_sandbox_limits_are_runs_that_did_not_run_through(status):
    assert not feedback.ran(MESSAGES[status])
