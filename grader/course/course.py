"""A course: what the app calls itself, what Home says and which optional pages it has.

Read from an optional `course.toml` in the exercises folder, beside the scenario folders; a
folder without one gets the defaults. Unknown keys are an error, as in every instructor file.

    title = "Attention by hand"
    intro = "Write the backward pass of one self-attention head."
    training = false
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from grader.course.schema import SchemaError, check_keys

FILE_NAME = "course.toml"
INTRO = """
Write, by hand, the gradients of a forward pass. Each answer is checked against PyTorch autograd
— on the given batch, on random upstream gradients and on other sizes — and the feedback says
what is wrong, not only that it is. Press **Ctrl+Enter** (Cmd+Enter on a Mac) in the editor to
submit.
"""


@dataclass(frozen=True)
class Course:
    """The app's title, Home's introduction (Markdown) and whether the training page exists."""

    title: str = "Backprop Ninja"
    intro: str = INTRO.strip()
    training: bool = True  # shown only where the lecture's MLP and its exercises are served


COURSE_KEYS = {f.name: type(getattr(Course, f.name)) for f in fields(Course)}


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
    return Course(**{k: v.strip() if isinstance(v, str) else v for k, v in raw.items()})
