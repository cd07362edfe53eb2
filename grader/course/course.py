"""A course: what the app calls itself, what Home says, which optional pages it has, and where
Progress suggests practising a mistake made twice.

Read from an optional `course.toml` in the exercises folder, beside the scenario folders; a
folder without one gets the defaults (and suggests no practice). Unknown keys are an error, as
in every instructor file. The course's `id` keys its learners' progress (two courses served from
one database never share it); without one, it is the folder's name. `solutions` says where its
reference answers live, relative to the folder: its own `solutions/` unless it names another
place inside it or beside it (the shipped course's answers are the project's `../solutions`).

    id = "attention"
    title = "Attention by hand"
    intro = "Write the backward pass of one self-attention head."
    training = false

    [[practice]]
    misconceptions = ["missing_branch"]
    exercises = ["dq", "dk"]
    rule = "a tensor used twice: add the gradient from every consumer"

    [language]  # names the exercise language adds here (docs/exercise-language.md)
    attributes = ["masked_fill"]
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, fields, replace
from datetime import datetime
from pathlib import Path, PurePosixPath

from grader.course.policy import Extension, Grading, read_extensions, read_grading
from grader.course.schema import SchemaError, check_keys, require
from grader.language import LANGUAGE, Language, widen
from grader.misconceptions import IDS

FILE_NAME = "course.toml"
COURSE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
INTRO = """
Write, by hand, the gradients of a forward pass. Each answer is checked against PyTorch autograd
— on the given batch, on random upstream gradients and on other sizes — and the feedback says
what is wrong, not only that it is. Press **Ctrl+Enter** (Cmd+Enter on a Mac) in the editor to
submit.
"""


@dataclass(frozen=True)
class Practice:
    """Where to practise one kind of mistake: the misconception ids it counts
    (grader/misconceptions.py), the exercises that turn on the same rule, in order, and the rule
    in a phrase ("You made 3 mistakes about <rule>.")."""

    misconceptions: tuple[str, ...]
    exercises: tuple[str, ...]
    rule: str


@dataclass(frozen=True)
class Course:
    """The app's title, Home's introduction (Markdown), whether the training page exists, the
    practice Progress suggests, and the id that keys its learners' progress."""

    title: str = "Backprop Ninja"
    intro: str = INTRO.strip()
    training: bool = True  # shown only where the lecture's MLP and its exercises are served
    practice: tuple[Practice, ...] = ()
    id: str = "default"  # a course read from a folder has that folder's name unless it sets one
    points: tuple[tuple[str, float], ...] = ()  # [points]: an item's weight in the gradebook
    deadlines: tuple[tuple[str, datetime], ...] = ()  # [deadlines]: when an item is due
    language: Language = LANGUAGE  # [language]: the exercise language, with what it adds
    solutions: str = "solutions"  # the answers' folder, relative to the course folder
    grading: Grading = Grading()  # [grading]: partial credit, late work, regrades (policy.py)
    extensions: tuple[Extension, ...] = ()  # extensions.csv beside course.toml

    def deadline_of(self, item: str) -> datetime | None:
        """Return an item's deadline (an aware datetime), if course.toml gives one."""
        return dict(self.deadlines).get(item)

    def points_of(self, item: str) -> float:
        """Return an item's points in the gradebook (1 unless [points] gives it others)."""
        return dict(self.points).get(item, 1)

    def practice_for(self, misconception: str) -> Practice | None:
        """Return the first practice that counts a misconception id, if any."""
        return next((p for p in self.practice if misconception in p.misconceptions), None)


COURSE_KEYS = {
    f.name: type(getattr(Course, f.name)) for f in fields(Course) if f.name != "extensions"
} | {
    "practice": list,
    "points": dict,
    "deadlines": dict,
    "grading": dict,
    "language": dict,
}
PRACTICE_KEYS = {"misconceptions": list, "exercises": list, "rule": str}
LANGUAGE_KEYS = {"attributes": list}  # no imports, no names: only declared attribute names


def load_course(root: Path) -> Course:
    """Return the course of an exercises folder; raise its first problem (SchemaError)."""
    course, problems = read_course(root)
    if problems:
        raise problems[0]
    return course


def read_course(root: Path) -> tuple[Course, tuple[SchemaError, ...]]:
    """Return the course of an exercises folder and its problems, each naming file and key.

    A bad key (unknown, of the wrong type, empty) or a bad `[[practice]]` table is refused on
    its own and the rest kept; a file that is not TOML at all gives the defaults.
    """
    extensions, unread = read_extensions(root)
    path, course = root / FILE_NAME, Course(id=root.resolve().name, extensions=extensions)
    if not path.exists():
        return course, unread
    where = str(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        return course, (SchemaError(where, f"is not valid TOML: {err}"), *unread)
    kept, problems = {}, []
    for key, value in raw.items():
        _keep(kept, key, lambda k=key, v=value: _value(k, v, where), problems)
    practice: dict[int, Practice] = {}
    for i, table in enumerate(kept.pop("practice", []), start=1):
        _keep(
            practice, i, lambda t=table, n=i: _practice(t, f"{where}: [[practice]] {n}"), problems
        )
    points: dict[str, float] = {}
    for item, value in kept.pop("points", {}).items():
        _keep(points, item, lambda v=value, i=item: _points(v, f"{where}: points.{i}"), problems)
    kept["points"] = tuple(points.items())
    due: dict[str, datetime] = {}
    for item, value in kept.pop("deadlines", {}).items():
        _keep(due, item, lambda v=value, i=item: _deadline(v, f"{where}: deadlines.{i}"), problems)
    kept["deadlines"] = tuple(due.items())
    if "language" in kept:
        table = kept.pop("language")
        _keep(kept, "language", lambda: _language(table, where), problems)
    kept["grading"], bad = read_grading(kept.pop("grading", {}), f"{where}: grading")
    return replace(course, **kept, practice=tuple(practice.values())), (*problems, *bad, *unread)


def _deadline(value, where: str) -> datetime:
    """Read one item's deadline: a TOML date-time with its offset (2026-12-01T23:59:00Z)."""
    ok = isinstance(value, datetime) and value.tzinfo is not None
    example = "2026-12-01T23:59:00Z"
    require(ok, where, f"must be a date-time with an offset, e.g. {example}, got {value}")
    return value


def _points(value, where: str) -> float:
    """Read one item's points: a number above 0 (not true or false)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    require(ok, where, f"must be a number above 0, got {value!r}")
    return value


def _keep(kept: dict, key, read, problems: list) -> None:
    """Keep read()'s value under key, or its SchemaError among the problems."""
    try:
        kept[key] = read()
    except SchemaError as err:
        problems.append(err)


def _value(key: str, value, where: str):
    """Return one top-level key's value, checked (strings stripped)."""
    check_keys({key: value}, COURSE_KEYS, (), where)
    if key in ("title", "intro"):
        require(value.strip(), f"{where}: {key}", "must not be empty")
    if key == "id":
        ok = COURSE_ID.match(value) is not None
        require(ok, f"{where}: id", "must be letters, digits, `_`, `-` or `.` (1 to 64)")
    if key == "solutions":
        require(_near(value), f"{where}: solutions", SOLUTIONS_RULE + f", got {value!r}")
    return value.strip() if isinstance(value, str) else value


def _language(raw: dict, where: str) -> Language:
    """Read `[language]`: the attribute names a course adds to the exercise language."""
    where = f"{where}: language"
    check_keys(raw, LANGUAGE_KEYS, ("attributes",), where)
    try:
        return widen(tuple(raw["attributes"]))
    except ValueError as err:
        raise SchemaError(f"{where}.attributes", str(err)) from None


SOLUTIONS_RULE = (
    "must be a folder inside the course folder or beside it, written relative to it "
    '("solutions", "answers/v2", "../solutions")'
)


def _near(value: str) -> bool:
    """Return whether a `solutions` path names a folder inside the course folder or beside it:
    relative, plain names, at most one `..` and only first (so no course reads another's)."""
    parts = PurePosixPath(value.strip()).parts
    names = parts[1:] if parts[:1] == ("..",) else parts
    plain = all(p not in ("", ".", "..", "~") and "\\" not in p for p in names)
    return bool(names) and plain and not value.strip().startswith("/")


def _practice(raw: dict, where: str) -> Practice:
    """Read one `[[practice]]` table: known misconception ids, exercise ids, a rule."""
    check_keys(raw, PRACTICE_KEYS, tuple(PRACTICE_KEYS), where)
    for key in ("misconceptions", "exercises"):
        ok = raw[key] and all(isinstance(v, str) and v for v in raw[key])
        require(ok, f"{where}: {key}", "must be a non-empty list of ids")
    unknown = [m for m in raw["misconceptions"] if m not in IDS]
    require(not unknown, f"{where}: misconceptions", f"unknown ids {unknown}: see {IDS}")
    require(raw["rule"].strip(), f"{where}: rule", "must not be empty")
    return Practice(tuple(raw["misconceptions"]), tuple(raw["exercises"]), raw["rule"].strip())
