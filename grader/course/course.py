"""A course: what the app calls itself, what Home says, which optional pages it has, and where
Progress suggests practising a mistake made twice.

Read from an optional `course.toml` in the exercises folder, beside the scenario folders; a
folder without one gets the defaults (and suggests no practice). Unknown keys are an error, as
in every instructor file.

    title = "Attention by hand"
    intro = "Write the backward pass of one self-attention head."
    training = false

    [[practice]]
    misconceptions = ["missing_branch"]
    exercises = ["dq", "dk"]
    rule = "a tensor used twice: add the gradient from every consumer"
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from grader.course.schema import SchemaError, check_keys, require
from grader.misconceptions import IDS

FILE_NAME = "course.toml"
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
    """The app's title, Home's introduction (Markdown), whether the training page exists, and
    the practice Progress suggests."""

    title: str = "Backprop Ninja"
    intro: str = INTRO.strip()
    training: bool = True  # shown only where the lecture's MLP and its exercises are served
    practice: tuple[Practice, ...] = ()

    def practice_for(self, misconception: str) -> Practice | None:
        """Return the first practice that counts a misconception id, if any."""
        return next((p for p in self.practice if misconception in p.misconceptions), None)


COURSE_KEYS = {f.name: type(getattr(Course, f.name)) for f in fields(Course)} | {"practice": list}
PRACTICE_KEYS = {"misconceptions": list, "exercises": list, "rule": str}


def load_course(root: Path) -> Course:
    """Return the course of an exercises folder; raise SchemaError naming the file and key."""
    path = root / FILE_NAME
    if not path.exists():
        return Course()
    where = str(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise SchemaError(where, f"is not valid TOML: {err}") from err
    check_keys(raw, COURSE_KEYS, (), where)
    for key in ("title", "intro"):
        if key in raw and not raw[key].strip():
            raise SchemaError(f"{where}: {key}", "must not be empty")
    practice = tuple(
        _practice(p, f"{where}: practice[{i}]") for i, p in enumerate(raw.pop("practice", []))
    )
    plain = {k: v.strip() if isinstance(v, str) else v for k, v in raw.items()}
    return Course(**plain, practice=practice)


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
