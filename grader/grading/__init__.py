"""Grading one answer: run it in the sandbox on the cases, then the declared checks, in order.

    >>> from grader.grading import Grader
    >>> result = Grader(dataset).grade("dlogprobs", code)

engine.py is the Grader; pipeline.py declares the checks (STEPS) that checks.py implements;
clues.py gathers what they read (the Subject, and the clues of the detectors hints.py declares);
cases.py and reference.py prepare the cases and the reference gradients; wholepass.py grades a
whole backward pass; scratch.py runs the scratchpad; views.py and graph.py describe an exercise.
Names are imported on first use (the room loads torch).
"""

from __future__ import annotations

from grader.lazy import lazy_names

_HOMES = {
    "ExerciseView": "grader.grading.views",
    "GRADCHECK": "grader.grading.pipeline",
    "Grader": "grader.grading.engine",
    "LECTURE": "grader.grading.cases",
    "ScenarioError": "grader.grading.reference",
    "Source": "grader.grading.checks",
    "Subject": "grader.grading.checks",
    "TensorInfo": "grader.grading.views",
    "run_forward": "grader.grading.reference",
    "synthetic_data": "grader.grading.reference",
}
__all__ = sorted(_HOMES)

__getattr__ = lazy_names("grader.grading", _HOMES)
