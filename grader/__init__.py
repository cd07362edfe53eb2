"""Backprop Ninja's grading engine: a plain library (it never imports Streamlit).

    >>> from grader import Grader
    >>> result = Grader(dataset).grade("dlogprobs", code)
    >>> result.solved, result.summary()

Learner code runs only in the sandbox's forked workers; references stay in this process.
"""

from __future__ import annotations

from grader.engine import Grader
from grader.exercises import Catalog, Exercise, discover
from grader.result import Check, Cmp, CodeError, Heatmap, PassResult, PassRow, Result
from grader.schema import SchemaError
from grader.views import ExerciseView, TensorInfo

__all__ = [
    "Catalog",
    "Check",
    "Cmp",
    "CodeError",
    "Exercise",
    "ExerciseView",
    "Grader",
    "Heatmap",
    "PassResult",
    "PassRow",
    "Result",
    "SchemaError",
    "TensorInfo",
    "discover",
]
