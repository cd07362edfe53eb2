"""The sandbox that runs untrusted learner code: forked from warm zygotes, confined in layers.

    >>> from grader.sandbox import Case, Limits, default_sandbox
    >>> outcome = default_sandbox().run("dy = 2 * x", [Case("lecture", {"x": x}, {}, ("dy",))])
    >>> outcome.status, outcome.cases[0].returned["dy"].tensor

Learner code never runs in the calling process; see docs/ARCHITECTURE.md, "Processes".
"""

from .layers import MissingLayers
from .records import Case, CaseOutcome, LearnerError, Limits, Returned, RunOutcome
from .sandbox import Sandbox, default_sandbox

__all__ = [
    "Case",
    "CaseOutcome",
    "LearnerError",
    "MissingLayers",
    "Limits",
    "Returned",
    "RunOutcome",
    "Sandbox",
    "default_sandbox",
]
