"""The gradebook a spreadsheet and an LMS take as is (issue 25): a wide CSV (a row per learner,
a column per item of the course), a roster's learners and empty folders listed, a UTF-8 BOM,
the grading time and the course's version in the book, "did you mean" for a misnamed file.
The book is written from rows made here (no grading); test_batch.py grades a class for real."""

from __future__ import annotations

import csv
import json
import shutil
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import pandas as pd
import pytest

from grader import gradebook
from grader.cli.inputs import BadInput
from grader.course import Course
from grader.gradebook import Book, Graded
from grader.gradebook.collect import did_you_mean

from ..cli_helpers import in_process as cli  # main(), in this process

DOCS = Path(__file__).resolve().parents[3] / "docs"
LANGUAGE = Path(__file__).parents[1] / "fixtures" / "language" / "exercises"
COLUMNS = ("dh", "dW2", "whole_pass:01_mlp")
SUMMARY = "`dh` has the wrong shape: got (64 × 32), expected (32, 64)."


def _row(learner: str, item: str, status: str, summary: str = "") -> Graded:
    kind = "whole_pass" if item.startswith("whole_pass") else "exercise"
    version = "" if kind == "whole_pass" else "0123456789ab"
    solved = status == "solved"
    return Graded(learner, item, kind, solved, status, summary, f"c/{learner}/{item}", version)


DUE = datetime(2026, 12, 1, 23, 59, tzinfo=UTC)
ROWS = [
    _row("ada", "dh", "solved"),
    replace(
        _row("ada", "dW2", "not_solved", SUMMARY),
        submitted_at=DUE.timestamp() + 1,  # a second late
        integrity="autograd",
    ),
    _row("grace", "dh", "refused"),
    _row("grace", "dh", "solved"),  # two answers to one item: the better one counts
    _row("=HYPERLINK(1)", "whole_pass:01_mlp", "solved"),
]
INFO = {"dataset": "default", "seconds": 1.0, "course": {"id": "mine", "version": "ab" * 6}}


@pytest.fixture
def book(tmp_path):
    """Write a book with a roster (zoe submitted nothing, ada is on it) and an empty folder."""
    learners = ("=HYPERLINK(1)", "ada", "empty", "grace")
    points = tuple(zip(COLUMNS, (2, 0.5, 1), strict=True))  # [points] of course.toml
    course = Course(points=points, deadlines=(("dW2", DUE),))
    plan = Book(COLUMNS, learners, ("ada", "zoe"), INFO, course=course)
    return gradebook.write_gradebook(ROWS, tmp_path / "book", INFO, plan)


def test_the_wide_csv_has_a_row_per_learner_and_a_column_per_item(book):
    _, wide, _ = book
    assert wide.name == "book.wide.csv"
    with wide.open(newline="", encoding="utf-8-sig") as f:
        rows = {r["learner"]: r for r in csv.DictReader(f)}
    assert list(rows) == ["'=HYPERLINK(1)", "ada", "empty", "grace", "zoe"]
    assert [rows["ada"][c] for c in COLUMNS] == ["solved", "not_solved", ""]
    assert rows["grace"]["dh"] == "solved" and rows["grace"]["solved"] == "1"
    assert [rows["zoe"][c] for c in COLUMNS] == ["", "", ""], "on the roster, nothing sent"
    assert rows["zoe"]["solved"] == "0" and rows["zoe"]["out_of"] == "3"
    assert rows["ada"]["course"] == "mine" and rows["ada"]["course_version"] == "ab" * 6
    assert rows["ada"]["graded_at"].endswith("Z")
    assert (rows["ada"]["points"], rows["ada"]["points_out_of"]) == ("2", "3.5")
    assert rows["grace"]["points"] == "2" and rows["zoe"]["points"] == "0"
    assert (rows["ada"]["late"], rows["ada"]["integrity"]) == ("dW2", "dW2: autograd")
    assert rows["grace"]["late"] == "" and rows["grace"]["integrity"] == ""


def test_both_csvs_start_with_a_bom_and_read_back_in_pandas(book):
    long, wide, _ = book
    for path in (long, wide):
        assert path.read_bytes().startswith(b"\xef\xbb\xbf"), path
    table = pd.read_csv(long, encoding="utf-8-sig")
    assert table.columns[0] == "learner" and SUMMARY in set(table["summary"])
    assert list(pd.read_csv(wide, encoding="utf-8-sig").columns[:4]) == ["learner", *COLUMNS]
    # a reader that only decodes UTF-8 (the BOM kept as a character) still sees the "×"
    assert "64 × 32" in long.read_text(encoding="utf-8")


def test_the_json_lists_everyone_and_validates(book):
    _, _, path = book
    document = json.loads(path.read_text())
    schema = json.loads((DOCS / "gradebook.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(document)
    by_name = {entry["learner"]: entry for entry in document["learners"]}
    assert by_name["zoe"]["items"] == [] and by_name["zoe"]["on_roster"]
    assert by_name["empty"]["items"] == [] and not by_name["empty"]["on_roster"]
    assert document["out_of"] == 3 and document["course"] == INFO["course"]
    assert document["points_out_of"] == 3.5 and by_name["ada"]["points"] == 2
    assert document["graded_at"].endswith("Z")
    assert {i["version"] for i in by_name["ada"]["items"]} == {"0123456789ab"}
    assert [i["late"] for i in by_name["ada"]["items"]] == [True, False]  # dW2, dh


def test_without_a_roster_no_learner_says_whether_it_is_on_one(tmp_path):
    _, _, path = gradebook.write_gradebook(ROWS, tmp_path / "b", INFO, Book(COLUMNS))
    document = json.loads(path.read_text())
    learners = document["learners"]
    assert learners and not [e for e in learners if "on_roster" in e]
    assert document["points_out_of"] == 3, "an item is worth 1 point unless [points] says"


def test_a_roster_is_names_one_a_line(tmp_path):
    roster = tmp_path / "roster.txt"
    roster.write_bytes("\ufeffada\n# the class of 2026\n\n  zoë \nada\n".encode())
    assert gradebook.read_roster(roster) == ("ada", "zoë")
    roster.write_bytes(b"caf\xe9\n")
    with pytest.raises(BadInput, match="not UTF-8"):
        gradebook.read_roster(roster)
    with pytest.raises(BadInput, match="cannot be read"):
        gradebook.read_roster(tmp_path / "missing.txt")


def test_a_misnamed_file_is_told_the_exercise_it_may_mean(tmp_path, catalog):
    subs = tmp_path / "my class"
    (subs / "ada").mkdir(parents=True)
    (subs / "ada" / "dw2.py").write_text("dW2 = 0\n")
    (subs / "bob").mkdir()  # an empty folder: a learner all the same
    items, refused, learners = gradebook.collect_class(subs, catalog, "01_mlp")
    assert not items and learners == ["ada", "bob"]
    assert refused[0].summary.endswith("did you mean `dW2.py`?")
    assert did_you_mean("notes.txt", [e.id for e in catalog.exercises]) == ""


def _broken_course(tmp_path) -> Path:
    """Return a copy of the language course with one exercise file that does not load."""
    course = tmp_path / "broken course" / "mycourse"
    shutil.copytree(LANGUAGE, course)
    (course / "90_language" / "08_dbest.toml").write_text('title = "dbest"\ntarget = \n')
    return course


def test_a_course_with_problems_is_not_graded_unless_told(tmp_path):
    course = _broken_course(tmp_path)
    subs = tmp_path / "class"
    (subs / "ada").mkdir(parents=True)
    (subs / "ada" / "dbest.py").write_text("dbest = 0\n")
    done = cli("grade-batch", subs, "--exercises", course, "--out", tmp_path / "book")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the course has 1 problem" in done.stderr and "08_dbest.toml" in done.stderr
    assert "--grade-sound" in done.stderr and not (tmp_path / "book.csv").exists()
