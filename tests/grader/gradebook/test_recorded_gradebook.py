"""The gradebook of attempts recorded by the app (grader/gradebook/recorded.py): grade-batch's rows
and files from plain facts, valid against docs/gradebook.schema.json."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import jsonschema

from grader import discover
from grader.gradebook import columns_of, gradebook_files
from grader.gradebook.recorded import gradebook_rows

ROOT = Path(__file__).resolve().parents[3]


def _fact(learner, item, status, failed_check="", version="ab12"):
    return {
        "learner": learner,
        "item": item,
        "status": status,
        "summary": f"{item}: {status}",
        "source": "editor attempt #1",
        "version": version,
        "failed_check": failed_check,
        "at": 1.0,
    }


def test_rows_keep_the_course_items_and_read_the_facts():
    catalog = discover()
    whole = next(i for i in columns_of(catalog) if i.startswith("whole_pass:"))
    facts = [
        _fact("ada", "dlogprobs", "solved"),
        _fact("ada", "dprobs", "not_solved", failed_check="rules"),
        _fact("ada", "not_an_item", "solved"),
        _fact("bob", whole, "busy"),
    ]
    rows = gradebook_rows(facts, catalog)
    assert [(r.learner, r.item, r.kind, r.solved, r.status, r.integrity) for r in rows] == [
        ("ada", "dlogprobs", "exercise", True, "solved", ""),
        ("ada", "dprobs", "exercise", False, "not_solved", "autograd"),
        ("bob", whole, "whole_pass", False, "not_solved", ""),
    ]
    assert rows[2].version == "", "a whole pass has no exercise version"


def test_the_files_are_grade_batchs_and_validate():
    catalog = discover()
    facts = [_fact("ada", "dlogprobs", "solved"), _fact("bob", "dprobs", "grader_failed")]
    files = gradebook_files(facts, ["ada", "bob", "cy"], catalog)
    book = json.loads(files["json"])
    schema = json.loads((ROOT / "docs" / "gradebook.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(book)
    assert [(e["learner"], e["solved"], len(e["items"])) for e in book["learners"]] == [
        ("ada", 1, 1),
        ("bob", 0, 1),
        ("cy", 0, 0),
    ]
    wide = list(csv.DictReader(io.StringIO(files["wide.csv"].decode("utf-8-sig"))))
    assert [(r["learner"], r["dlogprobs"], r["dprobs"]) for r in wide] == [
        ("ada", "solved", ""),
        ("bob", "", "grader_failed"),
        ("cy", "", ""),
    ]
    assert files["csv"].decode("utf-8-sig").splitlines()[0].startswith('"learner","item","kind"')
