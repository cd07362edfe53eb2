"""A course that lies is never graded in silence: grade-batch grades each graded exercise's
reference answer first and names the one that fails; it refuses (the default), or grades with
the warning in the book when told (`--reference-fails warn`)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from ..cli_helpers import in_process as cli  # main(), in this process, on the shared sandbox

pytestmark = pytest.mark.slow  # grades a small class through the command

LANGUAGE = Path(__file__).parents[1] / "fixtures" / "language" / "exercises"


@pytest.fixture
def lying(tmp_path) -> tuple[Path, Path]:
    """Return a course whose reference answer for dhr is wrong (twice the gradient), and a
    class that answers dhr (right) and du."""
    course = tmp_path / "a course"
    shutil.copytree(LANGUAGE, course)
    answers = course / "solutions" / "90_language"
    right = (answers / "dhr.py").read_text()
    (answers / "dhr.py").write_text("dhr = dy * 2\n")
    klass = tmp_path / "class"
    (klass / "ada").mkdir(parents=True)
    (klass / "ada" / "dhr.py").write_text(right)
    shutil.copy(answers / "du.py", klass / "ada" / "du.py")
    return course, klass


def test_a_wrong_reference_answer_is_named_and_nobody_is_graded(tmp_path, lying):
    course, klass = lying
    done = cli("grade-batch", klass, "--exercises", course, "--out", tmp_path / "book")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the reference answer of 1 exercise(s) fails its own grading" in done.stderr
    assert "`dhr`:" in done.stderr and "`du`" not in done.stderr, "only the one that fails"
    assert "--reference-fails warn" in done.stderr and not (tmp_path / "book.json").exists()


def test_told_to_it_grades_with_the_warning_in_the_book(tmp_path, lying):
    course, klass = lying
    out = tmp_path / "book"
    flags = ("--exercises", course, "--out", out, "--reference-fails", "warn")
    done = cli("grade-batch", klass, *flags)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning: the reference answer of `dhr` fails its own grading" in done.stderr
    book = json.loads(out.with_suffix(".json").read_text())
    (note,) = [n for n in book["notes"] if "fails its proof" in n]
    assert note.startswith("`dhr` fails its proof") and "reveal" in note
    items = {i["item"]: i for i in book["learners"][0]["items"]}
    assert items["dhr"]["reference_fails"] and not items["du"]["reference_fails"]
    with out.with_suffix(".wide.csv").open(encoding="utf-8-sig") as f:
        (row,) = csv.DictReader(f)
    assert "dhr: fails its proof" in row["notes"]
