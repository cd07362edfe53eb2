"""`python -m grader grade-batch`: a class in, a gradebook (CSV and JSON) out, verdicts right;
the JSON validates against docs/gradebook.schema.json, which docs/gradebook.md documents."""

from __future__ import annotations

import copy
import csv
import json
import re
import shutil
from pathlib import Path

import jsonschema
import pandas as pd
import pytest

from grader.gradebook import SCHEMA, write_class

from ..cli_helpers import in_process as cli  # main(), in this process, on the shared sandbox

pytestmark = pytest.mark.slow  # grades a class through the CLI

DOCS = Path(__file__).resolve().parents[3] / "docs"


@pytest.fixture(scope="module")
def validator():
    """Return a validator for the documented schema (itself checked against draft 2020-12)."""
    schema = json.loads((DOCS / "gradebook.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_a_class_is_graded_into_a_gradebook(tmp_path, catalog, validator):
    subs = tmp_path / "class"
    expected = write_class(subs, catalog, learners=8)
    (subs / "learner003" / "notes.txt").write_text("my notes")
    (subs / "learner005.py").write_bytes(b"\x00\x01binary")
    expected["learner005/whole_pass:01_mlp"] = False
    done = cli("grade-batch", subs, "--out", tmp_path / "book", "--slots", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "graded in" in done.stdout and "12/12 graded" in done.stderr, "a progress bar"
    with (tmp_path / "book.csv").open(encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    verdicts = {f"{r['learner']}/{r['item']}": r["solved"] == "True" for r in rows}
    assert {k: v for k, v in verdicts.items() if k in expected} == expected
    statuses = {f"{r['learner']}/{r['item']}": r["status"] for r in rows}
    assert statuses["learner003/notes.txt"] == "refused"
    assert statuses["learner005/whole_pass:01_mlp"] == "refused"
    book = json.loads((tmp_path / "book.json").read_text())
    validator.validate(book)
    assert book["schema"] == SCHEMA == "backprop-ninja/gradebook/3" and book["dataset"] == "default"
    by_name = {entry["learner"]: entry for entry in book["learners"]}
    assert by_name["learner003"]["solved"] == 2 and by_name["learner003"]["graded"] == 3
    dh = next(i for i in by_name["learner003"]["items"] if i["item"] == "dh")
    assert "inner sizes" in dh["summary"], "the feedback's diagnosis is in the book"


def test_bad_input_is_refused_before_grading(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for args, text in [
        ((tmp_path / "missing",), "is not a folder of submissions"),
        ((empty,), "holds no submissions"),
        ((empty, "--slots", "0"), "--slots must be a number from 1 to 16"),
        ((empty, "--scenario", "lstm"), "no scenario `lstm`"),
    ]:
        done = cli("grade-batch", *args)
        assert done.returncode == 2 and text in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


VERDICT = {"status": "solved", "version": "", "right": 26, "parts": 26, "passed": 55, "checks": 55}
BOOK = {
    "schema": SCHEMA,
    "dataset": "default",
    "seconds": 1.5,
    "graded_at": "2026-11-26T18:00:00Z",
    "course": {"id": "default", "version": "0123456789ab"},
    "out_of": 20,
    "points_out_of": 20,
    "policy": {
        "partial_credit": "per_gradient",
        "late": "per_day",
        "late_percent_per_day": 10,
        "late_floor_percent": 50,
        "regrades": "latest",
        "extensions": 1,
    },
    "notes": [],
    "learners": [
        {
            "learner": "ada",
            "solved": 1,
            "graded": 1,
            "points": 0.9,
            "items": [
                {
                    "learner": "ada",
                    "item": "whole_pass:01_mlp",
                    "kind": "whole_pass",
                    "solved": True,
                    "status": "solved",
                    "summary": "All 26 gradients are right.",
                    "file": "class/ada.py",
                    "version": "",
                    "integrity": "",
                    "late": True,
                    "submitted_at": "2026-12-02T00:00:00Z",
                    "time_from": "manifest",
                    "answer": "0123456789ab",
                    "right": 26,
                    "parts": 26,
                    "passed": 55,
                    "checks": 55,
                    "history": [VERDICT | {"status": "not_solved", "right": 25, "passed": 53}],
                    "reference_fails": False,
                }
            ],
            "marks": [
                {
                    "item": "whole_pass:01_mlp",
                    "status": "solved",
                    "version": "",
                    "file": "class/ada.py",
                    "credit": 1,
                    "late_days": 1,
                    "kept_late": 0.9,
                    "points": 0.9,
                    "out_of": 1,
                    "due": "2026-12-01T23:59:00Z",
                    "extended": False,
                    "regraded": True,
                    "was_status": "not_solved",
                    "was_version": "",
                    "credit_kept": False,
                }
            ],
        }
    ],
}


@pytest.mark.parametrize(
    "path, value",
    [
        (("schema",), "backprop-ninja/gradebook/1"),
        (("graded_at",), "yesterday"),
        (("course", "version"), "v1"),
        (("learners", 0, "items", 0, "solved"), False),  # solved must match its status
        (("learners", 0, "items", 0, "item"), "01_mlp"),  # a whole pass is whole_pass:<slug>
        (("learners", 0, "items", 0, "status"), "passed"),
        (("learners", 0, "items", 0, "integrity"), "suspicious"),
        (("learners", 0, "score"), 3),
        (("policy", "late"), "per_week"),
        (("learners", 0, "items", 0, "time_from"), "guessed"),
        (("learners", 0, "items", 0, "submitted_at"), "2026-12-02 00:00"),
        (("learners", 0, "items", 0, "history", 0, "status"), "passed"),
        (("learners", 0, "marks", 0, "credit"), 0.5),  # a solved cell earns all its credit
        (("learners", 0, "marks", 0, "was_status"), ""),  # a regraded cell says what it was
        (("learners", 0, "marks", 0, "kept_late"), 1.5),
    ],
)
def test_the_schema_refuses_what_the_doc_forbids(validator, path, value):
    validator.validate(BOOK)
    broken = copy.deepcopy(BOOK)
    node = broken
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(broken)


def _keys(node) -> set[str]:
    """Return every property name a schema declares."""
    if isinstance(node, list):
        return set().union(*map(_keys, node)) if node else set()
    if not isinstance(node, dict):
        return set()
    own = set(node.get("properties", {})) if isinstance(node.get("properties"), dict) else set()
    return own | set().union(*(_keys(v) for v in node.values()))


def test_the_doc_documents_every_key_and_status():
    schema = json.loads((DOCS / "gradebook.schema.json").read_text())
    doc = (DOCS / "gradebook.md").read_text()
    documented = set(re.findall(r"^\| `(\w+)` \|", doc, flags=re.MULTILINE))
    assert _keys(schema) <= documented, _keys(schema) - documented
    for status in schema["$defs"]["item"]["properties"]["status"]["enum"]:
        assert f"`{status}`" in doc
    example = doc[doc.index('```json\n{\n  "schema"') + 8 :]
    jsonschema.Draft202012Validator(schema).validate(json.loads(example[: example.index("```")]))


LANGUAGE = Path(__file__).parents[1] / "fixtures" / "language" / "exercises"


def test_a_course_of_its_own_is_graded_with_a_roster(tmp_path, validator):
    """A course folder with its answers inside, graded for a roster: who sent nothing has a row,
    a misnamed file is told the id it may mean, the book names the course and its version."""
    course = tmp_path / "a folder with spaces" / "mycourse"
    shutil.copytree(LANGUAGE, course)
    subs = tmp_path / "class"
    (subs / "ada").mkdir(parents=True)
    shutil.copy(course / "solutions" / "90_language" / "dhr.py", subs / "ada" / "dhr.py")
    (subs / "ada" / "DHR_1.py").write_text("dhr_1 = dhr * keep\n")
    (subs / "ada" / "du.py").write_text("u.backward(dhr_1)\ndu = u.grad\n")
    (subs / "bob").mkdir()  # an empty folder
    due = "[deadlines]\ndhr = 2000-01-01T00:00:00Z\ndu = 2999-01-01T00:00:00Z\n"
    (course / "course.toml").write_text("[points]\ndhr = 3\n" + due)
    roster = tmp_path / "roster.txt"
    roster.write_text("ada\nbob\ncy\n", encoding="utf-8")
    args = ("--exercises", course, "--roster", roster, "--out", tmp_path / "book")
    done = cli("grade-batch", subs, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    wide = pd.read_csv(tmp_path / "book.wide.csv", dtype=str, keep_default_na=False)
    wide = wide.set_index("learner")
    assert list(wide.index) == ["ada", "bob", "cy"]
    assert wide.loc["ada", "dhr"] == "solved" and wide.loc["ada", "solved"] == "1"
    assert wide.loc["cy", "dhr"] == "" and wide.loc["cy", "out_of"] == "8"  # 7 and a pass
    assert set(wide["course"]) == {"mycourse"}
    assert (wide.loc["ada", "points"], wide.loc["ada", "points_out_of"]) == ("3", "10")
    book = json.loads((tmp_path / "book.json").read_text())
    validator.validate(book)
    assert book["course"]["id"] == "mycourse" and book["out_of"] == 8
    ada = next(e for e in book["learners"] if e["learner"] == "ada")
    misnamed = next(i for i in ada["items"] if i["item"] == "DHR_1.py")
    assert misnamed["summary"].endswith("did you mean `dhr_1.py`?")
    items = {i["item"]: i for i in ada["items"]}
    assert items["dhr"]["summary"].startswith("`dhr` is solved: it matches autograd")
    assert items["du"]["integrity"] == "autograd" and items["du"]["status"] == "not_solved"
    assert items["dhr"]["integrity"] == "" and wide.loc["ada", "integrity"] == "du: autograd"
    assert (items["dhr"]["late"], items["du"]["late"]) == (True, False), "the file's own time"
    assert wide.loc["ada", "late"] == "dhr"


def test_a_course_with_problems_grades_what_is_sound_when_told(tmp_path):
    course = tmp_path / "mycourse"
    shutil.copytree(LANGUAGE, course)
    (course / "90_language" / "08_dbest.toml").write_text('title = "dbest"\ntarget = \n')
    subs = tmp_path / "class"
    (subs / "ada").mkdir(parents=True)
    (subs / "ada" / "dbest.py").write_text("dbest = 0\n")
    shutil.copy(course / "solutions" / "90_language" / "dhr.py", subs / "ada" / "dhr.py")
    args = ("--exercises", course, "--grade-sound", "--out", tmp_path / "book")
    done = cli("grade-batch", subs, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning: not graded, the course's problem:" in done.stderr
    with (tmp_path / "book.csv").open(encoding="utf-8-sig") as f:
        rows = {r["item"]: r for r in csv.DictReader(f)}
    assert rows["dhr"]["status"] == "solved"
    assert "not the learner's fault" in rows["dbest.py"]["summary"]
