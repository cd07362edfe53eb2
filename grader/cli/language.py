"""`language`: the exercise language's size, and which exercises use which attribute names."""

from __future__ import annotations

import ast
from pathlib import Path

from grader.cli import inputs
from grader.cli.common import SOLVED, emit
from grader.course import Catalog, discover
from grader.language import ATTRIBUTES, OPERATIONS


def add_arguments(parser) -> None:
    """Add the arguments of `language`."""
    parser.add_argument("folder", nargs="?", type=Path, help="an exercises folder")
    parser.add_argument("--doc", type=Path, help="write the language's page (Markdown) here")


def run(args) -> int:
    """Print the language's size and each attribute name's users; with --doc, write its page."""
    from grader.language.docpage import render

    catalog = discover(*inputs.course_folder(args.folder))
    usage = attribute_users(catalog)
    language = catalog.course.language
    emit(f"{len(ATTRIBUTES)} attribute names, {len(language.added)} added by this course")
    emit(f"{len(OPERATIONS)} forward operations let through at run time")
    for name, users in sorted(usage.items()):
        emit(f"{name:18} {', '.join(users)}")
    if args.doc:
        args.doc.write_text(render(usage), encoding="utf-8")
        emit(f"wrote {args.doc}")
    return SOLVED


def attribute_users(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """Return each attribute name the course's reference answers use -> those exercises."""
    users: dict[str, list[str]] = {}
    for exercise in catalog.exercises:
        try:
            tree = ast.parse(exercise.solution())
        except (OSError, SyntaxError):  # a missing or broken answer: `validate` says which
            continue
        names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        for name in sorted(names & catalog.course.language.attributes):
            users.setdefault(name, []).append(exercise.id)
    return {name: tuple(ids) for name, ids in users.items()}
