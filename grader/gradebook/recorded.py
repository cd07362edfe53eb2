"""A gradebook of the attempts the app recorded (the instructor dashboard's download), in
grade-batch's schema and written by grade-batch's own writer (py), from plain data.

    >>> facts = [{"learner": "ada@uni.edu", "item": "dlogprobs", "status": "solved",
    ...           "summary": "...", "source": "editor attempt #3", "version": "ab12",
    ...           "failed_check": "", "at": 1764000000.0}]
    >>> files = gradebook_files(facts, ["ada@uni.edu", "bob@uni.edu"], catalog)
    >>> sorted(files)
    ['csv', 'json', 'wide.csv']
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from grader.gradebook.book import (
    AUTOGRAD,
    NO_AUTOGRAD,
    WHOLE_PASS,
    Book,
    Graded,
    columns_of,
    course_info,
    write_gradebook,
)

APP_DATASET = "recorded in the app"  # each attempt names its own dataset
STATUSES = ("solved", "not_solved", "refused", "grader_failed")  # the schema's


def course_items(catalog) -> tuple[str, ...]:
    """Return the course's items, in course order: its exercise ids, then whole_pass:<slug>."""
    return columns_of(catalog)


def gradebook_rows(facts: list[dict], catalog) -> list[Graded]:
    """Return grade-batch's rows for recorded attempts at the course's items (others left out).

    Each fact is a dict: learner, item, status, summary, source (where the attempt came from,
    the row's `file`), version, failed_check (the first check it failed, "" if none), at (its
    time, seconds since the epoch).
    """
    items = set(course_items(catalog))
    return [_row(f, catalog) for f in facts if f["item"] in items]


def _row(fact: dict, catalog) -> Graded:
    item = fact["item"]
    kind = "whole_pass" if item.startswith(f"{WHOLE_PASS}:") else "exercise"
    status = fact["status"] if fact["status"] in STATUSES else "not_solved"
    deadline = catalog.course.deadline_of(item)
    return Graded(
        fact["learner"],
        item,
        kind,
        status == "solved",
        status,
        fact["summary"],
        fact["source"],
        fact["version"] if kind == "exercise" else "",
        AUTOGRAD if fact["failed_check"] == NO_AUTOGRAD else "",
        deadline is not None and fact["at"] > deadline.timestamp(),
    )


def gradebook_files(
    facts: list[dict], learners: list[str], catalog, shown: dict[str, str] | None = None
) -> dict[str, bytes]:
    """Return the gradebook's three files ('csv', 'wide.csv', 'json') as grade-batch writes
    them, for these recorded attempts and every learner named (those with none listed too),
    keyed as named and shown by `shown` (key -> the learner's name)."""
    columns = course_items(catalog)
    points = tuple(catalog.course.points_of(c) for c in columns)
    info = {"dataset": APP_DATASET, "seconds": 0, "course": course_info(catalog)}
    book = Book(columns, tuple(learners), None, info, points, dict(shown or {}))
    rows = gradebook_rows(facts, catalog)
    with tempfile.TemporaryDirectory(prefix="ninja-gradebook-") as folder:
        paths = write_gradebook(rows, Path(folder) / "gradebook", info, book)
        return {p.name.removeprefix("gradebook."): p.read_bytes() for p in paths}
