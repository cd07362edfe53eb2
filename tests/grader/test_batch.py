"""`python -m grader grade-batch`: a class in, a gradebook (CSV and JSON) out, verdicts right."""

from __future__ import annotations

import csv
import json

from grader.classgen import write_class

from .test_cli import cli


def test_a_class_is_graded_into_a_gradebook(tmp_path, catalog):
    subs = tmp_path / "class"
    expected = write_class(subs, catalog, learners=8)
    (subs / "learner003" / "notes.txt").write_text("my notes")
    (subs / "learner005.py").write_bytes(b"\x00\x01binary")
    expected["learner005/whole_pass:01_mlp"] = False
    done = cli("grade-batch", subs, "--out", tmp_path / "book", "--slots", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "graded in" in done.stdout and "12/12 graded" in done.stderr, "a progress bar"
    with (tmp_path / "book.csv").open() as f:
        rows = list(csv.DictReader(f))
    verdicts = {f"{r['learner']}/{r['item']}": r["solved"] == "True" for r in rows}
    assert {k: v for k, v in verdicts.items() if k in expected} == expected
    statuses = {f"{r['learner']}/{r['item']}": r["status"] for r in rows}
    assert statuses["learner003/notes.txt"] == "refused"
    assert statuses["learner005/whole_pass:01_mlp"] == "refused"
    book = json.loads((tmp_path / "book.json").read_text())
    assert book["schema"] == "backprop-ninja/gradebook/1" and book["dataset"] == "default"
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
