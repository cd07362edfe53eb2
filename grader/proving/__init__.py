"""Proving an instructor's files: every exercise's solution passes, its starter fails, and more.

    >>> from grader.proving import validate
    >>> count, findings = validate(Path("exercises"))

prover.py proves exercises (grading each one's answers); scenariocheck.py checks a scenario's
shape comments and gradients; scenarios.py withdraws scenarios that fail to run; proofs.py
remembers proofs by the hash of their files; references.py grades the reference answers a
gradebook is about to use; prompts.py compares each prompt's code with its scenario's lines.
Names are imported on first use.
"""

from __future__ import annotations

from grader.lazy import lazy_names

_HOMES = {
    "Proofs": "grader.proving.proofs",
    "failing_references": "grader.proving.references",
    "prompt_findings": "grader.proving.prompts",
    "require_runnable": "grader.proving.scenarios",
    "runnable": "grader.proving.scenarios",
    "validate": "grader.proving.prover",
}
__all__ = sorted(_HOMES)

__getattr__ = lazy_names("grader.proving", _HOMES)
