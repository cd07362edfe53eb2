"""Backprop Ninja's grading engine: a plain library (it never imports Streamlit).

    >>> from grader import Grader
    >>> result = Grader(dataset).grade("dlogprobs", code)
    >>> result.solved, result.summary()

Learner code runs only in the sandbox's forked workers; references stay in this process.
The rooms, lowest first: sandbox/, course/, feedback/, grading/, training/, notebook/ and
proving/, gradebook/, cli/; each has a face (its `__init__.py`) and docs/rooms.md draws the order.
Names are imported on first use, so `from grader import discover` does not load torch.
"""

from __future__ import annotations

from grader.lazy import lazy_names

_HOMES = {
    "Grader": "grader.grading",
    "Catalog": "grader.course",
    "EXERCISES_DIR": "grader.course",
    "Exercise": "grader.course",
    "discover": "grader.course",
    "SchemaError": "grader.course",
    "BadInput": "grader.course",
    "TRAINING": "grader.course",
    "Check": "grader.result",
    "Cmp": "grader.result",
    "LearnerError": "grader.result",
    "Heatmap": "grader.result",
    "PassResult": "grader.result",
    "GradRow": "grader.result",
    "Result": "grader.result",
    "ExerciseView": "grader.grading",
    "TensorInfo": "grader.grading",
}
__all__ = sorted(_HOMES)

__getattr__ = lazy_names("grader", _HOMES)
