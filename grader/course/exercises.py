"""Exercises are data: discover every scenario and exercise of a course folder (`Catalog`).

Layout of a course folder: `NN_slug/scenario.toml` holds a forward program; every other
`NN_slug/NN_id.toml` beside it is one exercise on that program (exercise.py reads it), and its
reference answer lives in the course's `solutions/NN_slug/id.py`: the course folder's own
`solutions/`, unless its course.toml names another (the shipped course's is the project's
top-level `solutions/`). Names sort in teaching order.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.course import mistakes
from grader.course.course import Course, read_course
from grader.course.exercise import SOLUTIONS, Exercise, load_exercise, solutions_root
from grader.course.policy import EVERY_ITEM, EXTENSIONS
from grader.course.scenario import Scenario, load_scenario
from grader.course.schema import SchemaError, did_you_mean

ROOT = Path(__file__).resolve().parents[2]
EXERCISES_DIR = ROOT / "exercises"
SOLUTIONS_DIR = ROOT / SOLUTIONS  # the shipped course's answers (exercises/course.toml says so)


@dataclass(frozen=True)
class Catalog:
    """Everything discovered under a folder, with the files that could not be read."""

    scenarios: tuple[Scenario, ...]
    exercises: tuple[Exercise, ...]
    errors: tuple[SchemaError, ...] = field(default=())
    course: Course = field(default_factory=Course)

    def get(self, exercise_id: str) -> Exercise:
        """Return the exercise with this id, or raise KeyError listing the known ids."""
        for exercise in self.exercises:
            if exercise.id == exercise_id:
                return exercise
        known = ", ".join(e.id for e in self.exercises)
        raise KeyError(f"no exercise `{exercise_id}`; known: {known}")

    def scenario(self, slug: str) -> Scenario:
        """Return the scenario in folder `slug`."""
        return next(s for s in self.scenarios if s.slug == slug)

    def misconception_words(self, item: str, misconception: str) -> str:
        """Return a misconception recorded at an item (an exercise, a whole pass, training) in
        words: its listed mistake's name, or the shared id's meaning ("" if neither)."""
        listed = next((e.mistakes for e in self.exercises if e.id == item), ())
        return mistakes.words(listed, misconception)

    def withdraw(self, errors, exercises=(), scenarios=()) -> Catalog:
        """Return the catalog without these exercise ids and scenario slugs (and the exercises
        on those scenarios), with errors saying why added to its problems."""
        gone = set(scenarios)
        kept = tuple(
            e for e in self.exercises if e.id not in set(exercises) and e.scenario.slug not in gone
        )
        left = tuple(s for s in self.scenarios if s.slug not in gone)
        return replace(self, scenarios=left, exercises=kept, errors=self.errors + tuple(errors))


def discover(root: Path = EXERCISES_DIR) -> Catalog:
    """Read every scenario and exercise under root; collect errors instead of raising."""
    scenarios, exercises, errors, read = [], [], [], []
    course = _course(root, read)
    answers = solutions_root(root, course.solutions)
    for folder in sorted(p for p in root.iterdir() if _is_scenario_folder(p, answers)):
        try:
            scenario = load_scenario(folder / "scenario.toml")
        except (SchemaError, OSError) as err:
            errors.append(_as_schema_error(folder / "scenario.toml", err))
            continue
        scenarios.append(scenario)
        for path in sorted(folder.glob("*.toml")):
            if path.name == "scenario.toml":
                continue
            try:
                exercises.append(load_exercise(path, scenario, answers))
            except (SchemaError, OSError) as err:
                errors.append(_as_schema_error(path, err))
    problems = _duplicate_ids(exercises) + _reserved_ids(exercises)
    errors.extend(problems)
    withdrawn = {p.where for p in problems}
    kept = tuple(e for e in exercises if str(e.path) not in withdrawn)
    errors.extend(read)
    errors.extend(_unknown_points(course, kept, scenarios, root))
    return Catalog(tuple(scenarios), kept, tuple(errors), course)


def _unknown_points(course: Course, exercises, scenarios, root: Path) -> list[SchemaError]:
    """Report each [points] or [deadlines] key, and each extension's item, that names no
    exercise and no whole pass, with the item it may mean."""
    items = {e.id for e in exercises} | {f"whole_pass:{s.slug}" for s in scenarios if s.whole_pass}
    where = str(root / "course.toml")
    keyed = [(f"{where}: points.{i}", i) for i, _ in course.points]
    keyed += [(f"{where}: deadlines.{i}", i) for i, _ in course.deadlines]
    keyed += [
        (f"{root / EXTENSIONS}: line {e.line}: item", e.item)
        for e in course.extensions
        if e.item != EVERY_ITEM
    ]
    return [
        SchemaError(
            at, f"`{item}` is not an exercise id or whole_pass:<slug>{did_you_mean(item, items)}"
        )
        for at, item in keyed
        if item not in items
    ]


def _is_scenario_folder(path: Path, answers: Path) -> bool:
    """Return whether path is a scenario's folder (not hidden, a template or the answers)."""
    answers_here = path.name == SOLUTIONS or os.path.normpath(path) == str(answers)
    return path.is_dir() and path.name[0] not in "._" and not answers_here


def _course(root: Path, errors: list[SchemaError]) -> Course:
    """Return the folder's course; each bad key of course.toml is reported and left out."""
    try:
        course, problems = read_course(root)
    except OSError as err:
        errors.append(_as_schema_error(root / "course.toml", err))
        return Course(id=root.resolve().name)
    errors.extend(problems)
    return course


# Ids are also the app's page addresses: these belong to its own pages.
RESERVED_IDS = ("home", "progress", "training", "problems", "whole_pass")


def _reserved_ids(exercises: list[Exercise]) -> list[SchemaError]:
    """Report exercise ids that would take the address of one of the app's own pages."""
    return [
        SchemaError(str(e.path), f"id `{e.id}` is the address of one of the app's own pages")
        for e in exercises
        if e.id.lower() in RESERVED_IDS or e.id.lower().startswith("whole_pass")
    ]


def _as_schema_error(path: Path, err: Exception) -> SchemaError:
    """Return err as a SchemaError that names the file."""
    return err if isinstance(err, SchemaError) else SchemaError(str(path), str(err))


def _duplicate_ids(exercises: list[Exercise]) -> list[SchemaError]:
    """Report exercise ids used by more than one file, in any scenario (the first one stays)."""
    seen: dict[str, Path] = {}
    errors = []
    for exercise in exercises:
        if exercise.id in seen:
            problem = (
                f"id `{exercise.id}` is also used by {seen[exercise.id]}, which keeps it; "
                "this file is left out until it has an id of its own"
            )
            errors.append(SchemaError(str(exercise.path), problem))
        seen.setdefault(exercise.id, exercise.path)
    return errors
