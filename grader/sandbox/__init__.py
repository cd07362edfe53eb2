"""The sandbox that runs untrusted learner code: forked from warm zygotes, confined in layers.

    >>> from grader.sandbox import Case, Limits, default_sandbox
    >>> outcome = default_sandbox().run("dy = 2 * x", [Case("lecture", {"x": x}, {}, ("dy",))])
    >>> outcome.status, outcome.cases[0].returned["dy"].tensor

Learner code never runs in the calling process; see docs/ARCHITECTURE.md, "Processes".
Names are imported on first use, so `grader.sandbox.errors` can be read without torch.
"""

from __future__ import annotations

import importlib

_HOMES = {
    "Case": "grader.sandbox.records",
    "CaseOutcome": "grader.sandbox.records",
    "LearnerError": "grader.sandbox.errors",
    "Limits": "grader.sandbox.records",
    "Load": "grader.sandbox.records",
    "MissingLayers": "grader.sandbox.layers",
    "Returned": "grader.sandbox.records",
    "RunOutcome": "grader.sandbox.records",
    "Sandbox": "grader.sandbox.sandbox",
    "default_sandbox": "grader.sandbox.sandbox",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str):
    """Import a public name from its module on first use."""
    if name not in _HOMES:
        raise AttributeError(f"module 'grader.sandbox' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value
