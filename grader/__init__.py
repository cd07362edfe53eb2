"""Backprop Ninja's grading engine: a plain library (it never imports Streamlit).

    >>> from grader import Grader
    >>> result = Grader(dataset).grade("dlogprobs", code)
    >>> result.solved, result.summary()

Learner code runs only in the sandbox's forked workers; references stay in this process.
Names are imported on first use, so `from grader import discover` does not load torch.
"""

from __future__ import annotations

from grader.lazy import lazy_names

_HOMES = {
    "Grader": "grader.engine",
    "Catalog": "grader.exercises",
    "Exercise": "grader.exercises",
    "discover": "grader.exercises",
    "Check": "grader.result",
    "Cmp": "grader.result",
    "LearnerError": "grader.result",
    "Heatmap": "grader.result",
    "PassResult": "grader.result",
    "GradRow": "grader.result",
    "Result": "grader.result",
    "SchemaError": "grader.schema",
    "ExerciseView": "grader.views",
    "TensorInfo": "grader.views",
}
__all__ = sorted(_HOMES)

__getattr__ = lazy_names("grader", _HOMES)
