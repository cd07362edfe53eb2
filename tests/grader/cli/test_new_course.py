"""`new-course PATH` (issue 25): one folder made from the template, with an id and a title of its
own, that `validate` proves sound and `grade-batch` grades for a roster, in a path with spaces.
`new-course` runs as a user runs it (a process of its own); `validate` and `grade-batch` by the
CLI's main in this process, on the shared sandbox (their processes are run by test_readme.py and
test_hostile_batch.py). test_course_unprivileged.py runs this file again as an ordinary user."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from grader import discover
from grader.cli import main

from ..cli_helpers import in_process

ROOT = Path(__file__).resolve().parents[3]
TEMPLATE = ROOT / "exercises" / "_new_course"


def _grader(*args) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip


def _answer(course: Path) -> str:
    return (course / "solutions" / "01_first" / "dhpre.py").read_text()


@pytest.mark.slow
def test_a_new_course_is_valid_and_graded_for_a_roster(tmp_path):
    course = tmp_path / "Backprop by hand" / "tanh course"
    course.parent.mkdir()
    made = _grader("new-course", course, "--title", "Tanh, by hand ×")
    assert made.returncode == 0, made.stdout + made.stderr
    assert "python -m grader validate" in made.stdout
    settings = tomllib.loads((course / "course.toml").read_text(encoding="utf-8"))
    assert (settings["id"], settings["title"]) == ("tanh-course", "Tanh, by hand ×")
    assert not [p for p in course.parent.iterdir() if p.name.startswith(".")], "no draft left"

    proved = in_process("validate", course)
    assert proved.returncode == 0, proved.stdout + proved.stderr
    assert "1 exercises checked" in proved.stdout or "1 exercise checked" in proved.stdout

    (tmp_path / "class" / "ada").mkdir(parents=True)
    (tmp_path / "class" / "ada" / "dhpre.py").write_text(_answer(course))
    (tmp_path / "class" / "bob").mkdir()
    (tmp_path / "class" / "bob" / "dhpre.py").write_text("dhpre = da.clone()\n")
    (tmp_path / "class" / "dan.py").write_text(_answer(course))  # no whole pass to answer
    roster = tmp_path / "roster.txt"
    roster.write_text("ada\nbob\ncy\n", encoding="utf-8")
    out = tmp_path / "book"
    args = ("--exercises", course, "--roster", roster, "--out", out)
    graded = in_process("grade-batch", tmp_path / "class", *args)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    with out.with_suffix(".wide.csv").open(newline="", encoding="utf-8-sig") as f:
        rows = {r["learner"]: r for r in csv.DictReader(f)}
    assert {k: (r["dhpre"], r["solved"], r["out_of"]) for k, r in rows.items()} == {
        "ada": ("solved", "1", "1"), "bob": ("not_solved", "0", "1"), "cy": ("", "0", "1"),
        "dan": ("", "0", "1"),
    }  # fmt: skip
    book = json.loads(out.with_suffix(".json").read_text())
    dan = next(entry for entry in book["learners"] if entry["learner"] == "dan")
    assert [i["status"] for i in dan["items"]] == ["refused"]
    assert "no whole pass" in dan["items"][0]["summary"]
    assert book["course"]["id"] == "tanh-course"
    bob = next(entry for entry in book["learners"] if entry["learner"] == "bob")
    assert "local slope" in bob["items"][0]["summary"], "the template's listed mistake is caught"


def test_the_template_itself_loads_clean_and_is_never_served():
    catalog = discover(TEMPLATE)
    assert catalog.errors == ()
    assert [e.id for e in catalog.exercises] == ["dhpre"]
    assert catalog.get("dhpre").solution_path.is_file()
    assert "_new_course" not in {s.slug for s in discover().scenarios}


def test_a_folder_that_holds_anything_is_refused_and_kept(tmp_path, capsys):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    assert main(["new-course", str(taken)]) == 2
    assert "is not empty" in capsys.readouterr().err
    assert [p.name for p in taken.iterdir()] == ["notes.txt"]
    assert main(["new-course", str(taken / "notes.txt")]) == 2
    assert main(["new-course", str(tmp_path / "no" / "such")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_an_empty_folder_becomes_the_course_and_a_bad_id_is_refused(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["new-course", str(empty), "--id", "first.course"]) == 0
    assert discover(empty).course.id == "first.course" and discover(empty).errors == ()
    assert main(["new-course", str(tmp_path / "bad"), "--id", "no spaces"]) == 2
    err = capsys.readouterr().err
    assert "course.toml" in err and str(tmp_path / "bad") in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"], "nothing left behind"
