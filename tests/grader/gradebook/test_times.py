"""Submission times that mean something (grader/gradebook/times.py): a manifest's times win
over the files' own, a copy of the class folder (`cp -r`, which keeps no time) changes nobody's
lateness when a manifest is given, and without one the book says loudly that the times came
from the file system."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from grader import discover, gradebook
from grader.course import BadInput

from ..cli_helpers import in_process as cli  # main(), in this process, on the shared sandbox

LANGUAGE = Path(__file__).parents[1] / "fixtures" / "language" / "exercises"
DUE = datetime(2026, 3, 1, 12, 0, tzinfo=UTC).timestamp()
HOUR = 3600.0


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """Return the language course, dhr due at DUE, late work losing 10% a day."""
    folder = tmp_path_factory.mktemp("times") / "a course"
    shutil.copytree(LANGUAGE, folder)
    (folder / "course.toml").write_text(
        '[deadlines]\ndhr = 2026-03-01T12:00:00Z\n[grading]\nlate = "per_day"\n'
    )
    return folder


def _klass(root: Path, course: Path) -> Path:
    """Write ada's and bob's right dhr, ada's file touched a day late, bob's a day early."""
    answer = (course / "solutions" / "90_language" / "dhr.py").read_text()
    for learner, touched in (("ada", DUE + 24 * HOUR), ("bob", DUE - 24 * HOUR)):
        (root / learner).mkdir(parents=True)
        (root / learner / "dhr.py").write_text(answer)
        os.utime(root / learner / "dhr.py", (touched, touched))
    return root


MANIFEST = (
    "Learner,Item,Submitted_at\nada,dhr,2026-03-01T11:00:00Z\nBOB ,dhr,2026-03-01T13:00:00Z\n"
)


def test_a_manifests_times_win_over_the_files_times(tmp_path, course):
    klass = _klass(tmp_path / "class", course)
    (tmp_path / "times.csv").write_text(MANIFEST)
    items, _, _ = gradebook.collect_class(klass, discover(course), "90_language")
    manifest = gradebook.read_manifest(tmp_path / "times.csv")
    found = {i.learner: (i.submitted, i.time_from) for i in gradebook.stamped(items, manifest)}
    assert found == {"ada": (DUE - HOUR, "manifest"), "bob": (DUE + HOUR, "manifest")}
    plain = {i.learner: (i.submitted, i.time_from) for i in gradebook.stamped(items, None)}
    assert plain == {"ada": (DUE + 24 * HOUR, "file"), "bob": (DUE - 24 * HOUR, "file")}


@pytest.mark.slow  # three small books graded through the command
def test_a_copy_of_the_class_folder_changes_nobodys_lateness_given_a_manifest(tmp_path, course):
    klass = _klass(tmp_path / "class", course)
    copied = tmp_path / "copied"
    shutil.copytree(klass, copied, copy_function=shutil.copy)  # as `cp -r`: no times kept
    (tmp_path / "times.csv").write_text(MANIFEST)
    books = {}
    for name, folder, flags in (
        ("original", klass, ("--manifest", tmp_path / "times.csv")),
        ("copy", copied, ("--manifest", tmp_path / "times.csv")),
        ("copy, no manifest", copied, ()),
    ):
        out = tmp_path / name.replace(" ", "_").replace(",", "")
        done = cli("grade-batch", folder, "--exercises", course, "--out", out, *flags)
        assert done.returncode == 0, done.stdout + done.stderr
        books[name] = (json.loads(out.with_suffix(".json").read_text()), done.stderr)
    seen = {name: _lateness(book) for name, (book, _) in books.items()}
    assert seen["original"] == seen["copy"] == {"ada": (False, 1), "bob": (True, 0.9)}
    assert all(late for late, _ in seen["copy, no manifest"].values()), "copied: all late now"
    book, stderr = books["copy, no manifest"]
    assert "came from the file system" in book["notes"][0] and "--manifest" in book["notes"][0]
    assert "warning: no --manifest" in stderr
    assert books["copy"][0]["notes"] == [], "a manifest's times need no note"
    item = books["copy"][0]["learners"][0]["items"][0]
    assert (item["time_from"], item["submitted_at"]) == ("manifest", "2026-03-01T11:00:00Z")


def _lateness(book: dict) -> dict:
    """Return {learner: (late, points)} of a book of one item each."""
    return {e["learner"]: (e["items"][0]["late"], e["points"]) for e in book["learners"]}


def test_an_lms_export_is_a_manifest(tmp_path):
    moodle = tmp_path / "worksheet.csv"
    moodle.write_text(
        "Identifier,Full name,Email address,Status,Last modified (submission)\n"
        'Participant 1,Ada L,ada@uni.edu,Submitted,"Sunday, 1 March 2026, 12:30 PM"\n'
        "Participant 2,Bob,bob@uni.edu,No submission,-\n"
    )
    with pytest.raises(BadInput, match="has no offset; give its --timezone"):
        gradebook.read_manifest(moodle)
    found = gradebook.read_manifest(moodle, "Europe/Paris")  # 12:30 in Paris is 11:30 UTC
    assert found.time_of("Ada@uni.edu", "dhr") == DUE - 0.5 * HOUR
    assert found.time_of("bob@uni.edu", "dhr") is None, "not submitted: no time"
    canvas = tmp_path / "submissions.json"
    canvas.write_text(
        json.dumps([{"submitted_at": "2026-03-01T12:00:01Z", "user": {"login_id": "ada"}}])
    )
    assert gradebook.read_manifest(canvas).time_of("ada", "whole_pass:90_language") == DUE + 1


@pytest.mark.parametrize(
    "text, problem",
    [
        ("learner,item\nada,dhr\n", "has no time column (one of: submitted_at"),
        ("when,item,time\nada,dhr,1\n", "has no learner column"),
        ("learner,time\nada,yesterday\n", "row 2: 'yesterday' is not a time"),
        ("learner,time\nada,2026-03-01T12:00:00\n", "has no offset; give its --timezone"),
        ("learner,time\n", "holds no submissions"),
    ],
)
def test_a_bad_manifest_is_refused_naming_the_row(tmp_path, text, problem):
    (tmp_path / "m.csv").write_text(text)
    with pytest.raises(BadInput, match=problem.replace("(", r"\(")):
        gradebook.read_manifest(tmp_path / "m.csv")
    with pytest.raises(BadInput, match="is not a time zone"):
        gradebook.read_manifest(tmp_path / "m.csv", "Mars/Olympus")
