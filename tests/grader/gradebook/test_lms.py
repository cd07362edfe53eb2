"""Books an LMS imports as they are (issue 36): Canvas's, Moodle's and Blackboard's import layouts,
each written against a fixture of that LMS's own roster export (tests/grader/gradebook/lms/):
its header, a row per roster student (those who sent nothing too) carrying the LMS's ids, a
learner matched by login id or e-mail address, the points of the one scoring function. The book
is written from rows made here (no grading); test_scores_agree.py runs grade-batch --format."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from grader import gradebook
from grader.cli.inputs import BadInput
from grader.course import Course
from grader.gradebook import Book, Graded, LmsRoster, Submission, Verdict
from grader.gradebook.lms import lms_csv

from ..cli_helpers import in_process as cli  # main(), in this process

EXPORTS = Path(__file__).parent / "lms"
COLUMNS = ("dh", "dW2", "whole_pass:01_mlp")
COURSE = Course(points=tuple(zip(COLUMNS, (2, 0.5, 4), strict=True)))


def _row(learner: str, item: str, status: str) -> Graded:
    kind = "whole_pass" if item.startswith("whole_pass") else "exercise"
    return Graded(learner, item, kind, status == "solved", status, "", f"c/{learner}/{item}")


ROWS = [
    _row("ada", "dh", "solved"),
    _row("ada", "dW2", "not_solved"),
    _row("grace@uni.edu", "dh", "solved"),
    _row("grace@uni.edu", "whole_pass:01_mlp", "solved"),
    _row("stranger", "dh", "solved"),  # on no roster: not in the LMS's file
]
LEARNERS = ("ada", "grace@uni.edu", "stranger")

# Each LMS: its export, the header written, and each row written (identity cells, then points).
CASES = {
    "canvas": (
        "canvas.csv",
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
        + ["dh (7001)", "dW2", "whole_pass:01_mlp"],  # the export's own column keeps its id
        [
            ["Points Possible", "", "", "", "", "2", "0.5", "4"],
            ["Lovelace, Ada", "101", "S-101", "ada", "BN 101", "2", "0", ""],
            ["Hopper, Grace", "102", "S-102", "Grace@Uni.edu", "BN 101", "2", "", "4"],
            ["Zoë, Zed", "103", "S-103", "zoe", "BN 102", "", "", ""],
            ["Student, Test", "104", "", "", "BN 101", "", "", ""],
        ],
    ),
    "moodle": (
        "moodle.csv",
        ["First name", "Last name", "ID number", "Username", "Email address"]
        + ["Assignment: dh (Real)", "dW2", "whole_pass:01_mlp"],
        [
            ["Ada", "Lovelace", "S-101", "ada", "ada.lovelace@uni.edu", "2", "0", ""],
            ["Grace", "Hopper", "S-102", "ghopper", "grace@uni.edu", "2", "", "4"],
            ["Zoë", "Zed", "S-103", "zzed", "zoe@uni.edu", "", "", ""],
        ],
    ),
    "blackboard": (
        "blackboard.xls",
        ["Last Name", "First Name", "Username", "Student ID", "dh [Total Pts: 2 Score] |8001"]
        + ["dW2 [Total Pts: 0.5 Score]", "whole_pass:01_mlp [Total Pts: 4 Score]"],
        [
            ["Lovelace", "Ada", "ada", "S-101", "2", "0", ""],
            ["Hopper", "Grace", "grace@uni.edu", "S-102", "2", "", "4"],
            ["Zed", "Zoë", "zzed", "S-103", "", "", ""],
        ],
    ),
}


@pytest.mark.parametrize("lms", sorted(CASES))
def test_each_lms_gets_its_layout_and_every_roster_student(lms, tmp_path):
    export, header, rows = CASES[lms]
    roster = LmsRoster.read(EXPORTS / export, lms)
    book = Book(COLUMNS, LEARNERS, roster.names(LEARNERS), {}, course=COURSE, lms=roster)
    paths = gradebook.write_gradebook(ROWS, tmp_path / "book", {}, book)
    assert [p.name for p in paths] == ["book.csv", "book.wide.csv", f"book.{lms}.csv", "book.json"]
    raw = (tmp_path / f"book.{lms}.csv").read_bytes()
    assert raw.startswith("\ufeff".encode()), "UTF-8 with a BOM, as a spreadsheet reads it"
    written = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert written == [header, *rows]
    assert roster.unmatched(LEARNERS) == ["stranger"]


def test_blackboard_quotes_every_value():
    roster = LmsRoster.read(EXPORTS / "blackboard.xls", "blackboard")
    text = lms_csv(roster, [], (), ("dh",), (1,))
    assert text.splitlines()[1] == '"Lovelace","Ada","ada","S-101",""'


def test_the_ordinary_book_lists_the_roster_students_who_sent_nothing(tmp_path):
    roster = LmsRoster.read(EXPORTS / "canvas.csv", "canvas")
    assert roster.names(LEARNERS) == ("ada", "grace@uni.edu", "zoe", "")
    names = roster.names(("ADA", "zoe"))
    assert names[:3] == ("ADA", "Grace@Uni.edu", "zoe"), "case aside, the learner's own name"


def test_a_roster_of_another_lms_is_refused_by_name(tmp_path):
    with pytest.raises(BadInput, match="not a blackboard roster export: its header has no `Us"):
        LmsRoster.read(EXPORTS / "canvas.csv", "blackboard")
    (tmp_path / "latin1.csv").write_bytes(b"ID,Student\n1,Jos\xe9\n")
    with pytest.raises(BadInput, match="not UTF-8"):
        LmsRoster.read(tmp_path / "latin1.csv", "canvas")


def test_grade_batch_refuses_a_format_without_its_roster_before_grading(tmp_path):
    (tmp_path / "class" / "ada").mkdir(parents=True)
    done = cli("grade-batch", tmp_path / "class", "--format", "moodle", "--out", tmp_path / "b")
    assert done.returncode == 2 and "--format moodle needs --roster" in done.stderr
    wrong = ("--format", "moodle", "--roster", EXPORTS / "canvas.csv")
    done = cli("grade-batch", tmp_path / "class", *wrong, "--out", tmp_path / "b")
    assert done.returncode == 2 and "not a moodle roster export" in done.stderr
    assert not (tmp_path / "b.csv").exists()


SIS_EXPORT = b"""Student,ID,SIS User ID,SIS Login ID,Section
"Lovelace, Ada",101,,ada@uni.edu,BN 101
"Zed, Zoe",103,S-103,,BN 102
"""


def test_sis_ids_an_lms_said_match_learners_and_fill_empty_cells():
    learners = ("ada@uni.edu", "zed@lms.test")  # Zed's e-mail is on no row of the export
    plain = LmsRoster.parse(SIS_EXPORT, "canvas", "export.csv")
    assert plain.unmatched(learners) == ["zed@lms.test"]
    roster = plain.with_sis({"ada@uni.edu": "S-101", "zed@lms.test": " S-103 "})
    assert roster.match(learners) == {"ada@uni.edu": 0, "zed@lms.test": 1}
    marks = gradebook.score(COURSE, [Submission("zed@lms.test", "dh", (Verdict("solved"),))])
    written = list(csv.reader(io.StringIO(lms_csv(roster, marks, learners, ("dh",), (2,))[1:])))
    assert written[2:] == [
        ["Lovelace, Ada", "101", "S-101", "ada@uni.edu", "BN 101", ""],  # its empty SIS cell
        ["Zed, Zoe", "103", "S-103", "", "BN 102", "2"],  # matched by SIS id: Zed's points
    ]
