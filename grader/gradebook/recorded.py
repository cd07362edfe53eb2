"""A gradebook of the attempts the app recorded (the instructor dashboard's download), in
grade-batch's schema and written by grade-batch's own writer (book.py), from plain data: the
same scoring function, the course's policy, each attempt's recorded time, its regrades.

    >>> facts = [{"learner": "ada@uni.edu", "item": "dlogprobs", "status": "solved",
    ...           "summary": "...", "source": "editor attempt #3", "version": "ab12",
    ...           "failed_check": "", "at": 1764000000.0, "tally": (1, 1, 6, 6),
    ...           "regrades": []}]
    >>> files = gradebook_files(facts, ["ada@uni.edu", "bob@uni.edu"], catalog)
    >>> sorted(files)
    ['csv', 'json', 'wide.csv']
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from grader.gradebook.book import (
    AUTOGRAD,
    NO_AUTOGRAD,
    WHOLE_PASS,
    Book,
    Graded,
    columns_of,
    course_info,
    submissions,
    write_gradebook,
)
from grader.gradebook.policy import Mark, Verdict, score

APP_DATASET = "recorded in the app"  # each attempt names its own dataset
STATUSES = ("solved", "not_solved", "refused", "grader_failed")  # the schema's
APP = "app"  # an attempt's time is the one the app recorded


def course_items(catalog) -> tuple[str, ...]:
    """Return the course's items, in course order: its exercise ids, then whole_pass:<slug>."""
    return columns_of(catalog)


def gradebook_rows(facts: list[dict], catalog) -> list[Graded]:
    """Return grade-batch's rows for recorded attempts at the course's items (others left out).

    Each fact is a dict: learner, item, status, summary, source (where the attempt came from,
    the row's `file`), version, failed_check (the first check it failed, "" if none), at (its
    time, seconds since the epoch), and optionally tally (parts right, parts, checks passed,
    checks) and regrades: the same answer graded again after a fix, oldest first, each a dict
    of status, summary, version, failed_check and tally. A regraded answer's row is its latest
    verdict, the earlier ones its history.
    """
    items = set(course_items(catalog))
    return [_row(f, catalog) for f in facts if f["item"] in items]


def _row(fact: dict, catalog) -> Graded:
    """Return the row of one recorded answer: its latest verdict, the others its history."""
    item = fact["item"]
    kind = "whole_pass" if item.startswith(f"{WHOLE_PASS}:") else "exercise"
    verdicts = [fact, *fact.get("regrades", ())]
    now = verdicts[-1]
    status = _status(now)
    row = Graded(
        fact["learner"], item, kind, status == "solved", status, now["summary"], fact["source"],
        now["version"] if kind == "exercise" else "",
        AUTOGRAD if now["failed_check"] == NO_AUTOGRAD else "",
    )  # fmt: skip
    history = tuple(_verdict(v, kind) for v in verdicts[:-1])
    right, parts, passed, checks = now.get("tally", (0, 0, 0, 0))
    return replace(
        row, submitted_at=fact["at"], time_from=APP, history=history,
        right=right, parts=parts, passed=passed, checks=checks,
    )  # fmt: skip


def _status(fact: dict) -> str:
    """Return a recorded verdict's status, as the schema names it."""
    return fact["status"] if fact["status"] in STATUSES else "not_solved"


def _verdict(fact: dict, kind: str) -> Verdict:
    """Return a recorded verdict as the scoring function reads it."""
    version = fact["version"] if kind == "exercise" else ""
    return Verdict(_status(fact), version, *fact.get("tally", (0, 0, 0, 0)))


def recorded_marks(facts: list[dict], catalog) -> list[Mark]:
    """Return the scored cells of recorded attempts (the facts of gradebook_rows) under the
    course's policy: the numbers the dashboard's book holds, for a route that sends scores
    elsewhere (the LMS push)."""
    rows = gradebook_rows(facts, catalog)
    return score(catalog.course, submissions(rows, course_items(catalog)))


def gradebook_files(
    facts: list[dict],
    learners: list[str],
    catalog,
    references: dict | None = None,
    shown: dict[str, str] | None = None,
    lms=None,
) -> dict[str, bytes]:
    """Return the gradebook's three files ('csv', 'wide.csv', 'json') as grade-batch writes
    them, for these recorded attempts and every learner named (those with none listed too):
    per learner and item, the attempt that counts under the course's policy (the most points;
    on a tie the first solve, else the latest). references: {item: why its reference answer
    fails ("": not proven yet)}, named in the book; shown: {learner key: the name shown}; lms:
    an LMS's roster export (LmsRoster), its import file too ('canvas.csv', 'moodle.csv' or
    'blackboard.csv')."""
    columns = course_items(catalog)
    info = {"dataset": APP_DATASET, "seconds": 0, "course": course_info(catalog)}
    book = Book(columns, tuple(learners), None, info, course=catalog.course, lms=lms)
    book = replace(book, references=dict(references or {}), counted_only=True)
    book = replace(book, names=dict(shown or {}))
    rows = gradebook_rows(facts, catalog)
    with tempfile.TemporaryDirectory(prefix="ninja-gradebook-") as folder:
        paths = write_gradebook(rows, Path(folder) / "gradebook", info, book)
        return {p.name.removeprefix("gradebook."): p.read_bytes() for p in paths}
