"""`new-course PATH`: make a course folder from the template, sound from the start.

The template is `exercises/_new_course/` (a folder starting with `_` is never served): a
`course.toml`, one scenario, one exercise on it and its reference answer in the course's own
`solutions/`. The copy gets its own id and title; `validate PATH` proves it and
`NINJA_EXERCISES_DIR=PATH scripts/run` serves it. The folder appears whole or not at all.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from grader.cli.common import SOLVED, emit
from grader.course import EXERCISES_DIR, BadInput, discover

TEMPLATE = EXERCISES_DIR / "_new_course"
TEMPLATE_ID, TEMPLATE_TITLE = 'id = "my-course"\n', 'title = "My course"\n'


def add_arguments(parser) -> None:
    """Add the arguments of `new-course`."""
    parser.add_argument("path", type=Path, help="the new course folder (absent or empty)")
    parser.add_argument("--id", help="the course id, which keys progress (default: from PATH)")
    parser.add_argument("--title", help="the app's title for it (default: from PATH)")


def run(args) -> int:
    """Make the course folder; say what it holds and what to run next."""
    target = args.path
    _require_free(target)
    course_id = args.id if args.id is not None else id_from(target.resolve().name)
    title = args.title if args.title is not None else target.resolve().name
    made = _made(target, course_id, title)
    files = sorted(str(p.relative_to(made)) for p in made.rglob("*") if p.is_file())
    emit(f"Made the course `{course_id}` in {made}: {', '.join(files)}.")
    emit(f"Prove it: python -m grader validate {_quoted(made)}")
    emit(f"Serve it: NINJA_EXERCISES_DIR={_quoted(made)} scripts/run")
    return SOLVED


def id_from(name: str) -> str:
    """Return a course id made from a folder's name: letters, digits, `_`, `-` and `.`."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.").lower()[:64]


def _require_free(target: Path) -> None:
    """Refuse a path that holds anything: a course never overwrites a file."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise BadInput(f"{target} exists and is not a folder; name a new folder")
    if target.is_dir() and any(target.iterdir()):
        raise BadInput(f"{target} is not empty; name a new folder (nothing was written)")
    if not target.parent.is_dir():
        raise BadInput(f"{target.parent} is not a folder; make it first")


def _made(target: Path, course_id: str, title: str) -> Path:
    """Copy the template beside target with the id and title, prove it loads, move it in."""
    draft = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        folder = draft / "course"
        shutil.copytree(TEMPLATE, folder, ignore=shutil.ignore_patterns("__pycache__"))
        _name(folder / "course.toml", course_id, title)
        problems = [f"{e.where}: {e.problem}" for e in discover(folder).errors]
        if problems:
            given = "; ".join(p.replace(str(folder), str(target)) for p in problems)
            raise BadInput(f"the course cannot be made: {given}")
        os.replace(folder, target)  # an empty folder at target is replaced
    finally:
        shutil.rmtree(draft, ignore_errors=True)
    return target.resolve()


def _name(course_toml: Path, course_id: str, title: str) -> None:
    """Write the course's id and title into its course.toml (TOML strings, escaped)."""
    text = course_toml.read_text(encoding="utf-8")
    text = text.replace(TEMPLATE_ID, f"id = {json.dumps(course_id)}\n")
    text = text.replace(TEMPLATE_TITLE, f"title = {json.dumps(title)}\n")
    course_toml.write_text(text, encoding="utf-8")


def _quoted(path: Path) -> str:
    """Return a path as a shell would need it typed."""
    import shlex

    return shlex.quote(str(path))
