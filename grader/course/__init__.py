"""The course: exercises, scenarios and the scenario language, read from instructor files.

    >>> from grader.course import discover
    >>> catalog = discover()  # every exercise and scenario, in teaching order
    >>> catalog.get("dlogprobs").scenario.slug

exercises.py discovers a course folder (the Catalog) and exercise.py reads one exercise file;
scenario.py, program.py and differentiable.py read a scenario's forward program and shapes.py
its shape comments; course.py a course folder's course.toml; lecture.py the lecture links;
schema.py the checks every file shares (and BadInput); rules.py the static rules on a
learner's source.
Nothing here runs learner code or loads torch on import.
"""

from __future__ import annotations

from grader.lazy import lazy_names

_HOMES = {
    "BadInput": "grader.course.schema",
    "Catalog": "grader.course.exercises",
    "Course": "grader.course.course",
    "EXERCISES_DIR": "grader.course.exercises",
    "Exercise": "grader.course.exercise",
    "Practice": "grader.course.course",
    "Problem": "grader.course.rules",
    "SOLUTIONS_DIR": "grader.course.exercises",
    "Scenario": "grader.course.scenario",
    "SchemaError": "grader.course.schema",
    "Statement": "grader.course.program",
    "TOLERANCE": "grader.course.exercise",
    "TRAINING": "grader.course.lecture",
    "discover": "grader.course.exercises",
    "missing_solution": "grader.course.exercise",
    "solutions_root": "grader.course.exercise",
    "evaluate_shape": "grader.course.shapes",
}
__all__ = sorted(_HOMES)

__getattr__ = lazy_names("grader.course", _HOMES)
