"""One learner's data, exported whole and deleted whole, by identity or by profile, on both
engines, through the command line an instructor runs (`python -m app.storage`)."""

from __future__ import annotations

import json

import pytest

from app.classroom import ClassView
from app.storage import Attempt, Facts, TrainingRun, open_store
from app.storage.__main__ import main

ADA, BOB = "https://id.uni.edu 42", "https://id.uni.edu 43"


def _fill(store, owner: str, code: str):
    """Give owner a profile with a row in every table; return the profile."""
    me = store.learners.add_profile(f"learner {code}", owner)
    store.learners.use_profile(me)
    store.learners.set_setting(me, "dataset", "names")
    store.work.save_draft(me, "dh", f"dh = {code}")
    facts = Facts(True, "", "transposed", "not_solved")
    store.work.record_attempt(
        me, Attempt("dW2", f"dW2 = {code}", False, "`dW2` is off.", 0, 1, "d", facts=facts)
    )
    store.submissions.begin_submission(me, "dprobs", f"p:{code}", "dprobs = 0", "dprobs = 0", "s1")
    store.work.record_event(me, "dW2", "hint")
    store.runs.record_run(
        me, TrainingRun({"steps": 10}, 2.0, 2.1, ("emma.",), 9.0, 1.0, (3.0,), "d", code)
    )
    ClassView(store).note_person(owner, f"Person {code}", f"{code}@uni.edu", ("A",), "learner")
    return me


@pytest.fixture
def class_url(store_url):
    """Return the URL of a database holding Ada and Bob, each with every kind of row."""
    store = open_store(store_url)
    _fill(store, ADA, "ada")
    _fill(open_store(store_url, course="other"), BOB, "bob")
    return store_url


def test_export_by_identity_holds_every_row_of_that_learner_only(class_url, tmp_path, capsys):
    out = tmp_path / "ada.json"
    assert main(["--url", class_url, "export", "--identity", ADA, "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["format"] == "backprop-ninja/learner-export/1"
    (ada,) = data["profiles"]
    assert (ada["name"], ada["owner"]) == ("learner ada", ADA)
    (attempt,) = ada["attempts"]
    assert (attempt["code"], attempt["summary"], attempt["misconception"]) == (
        "dW2 = ada", "`dW2` is off.", "transposed",
    )  # fmt: skip
    assert [d["code"] for d in ada["drafts"]] == ["dh = ada", "dprobs = 0"]
    assert [e["kind"] for e in ada["events"]] == ["hint"]
    assert [s["ticket"] for s in ada["submissions"]] == ["p:ada"]
    assert ada["settings"] == [{"key": "dataset", "value": "names"}]
    assert ada["training_runs"][0]["samples"] == ["emma."]
    assert (ada["person"]["email"], ada["person"]["groups"]) == ("ada@uni.edu", ["A"])
    assert "bob" not in out.read_text()


def test_export_by_profile_prints_json(class_url, capsys):
    bob = open_store(class_url).learners.profiles(BOB)[0]
    assert main(["--url", class_url, "export", "--profile", str(bob.id)]) == 0
    (profile,) = json.loads(capsys.readouterr().out)["profiles"]
    assert profile["owner"] == BOB and profile["drafts"][0]["course_id"] == "other"


def test_delete_needs_yes_then_leaves_nothing_of_that_learner(class_url, capsys):
    store = open_store(class_url)
    assert main(["--url", class_url, "delete", "--identity", ADA]) == 1
    assert "add --yes" in capsys.readouterr().err and store.learners.profiles(ADA)
    assert main(["--url", class_url, "delete", "--identity", ADA, "--yes"]) == 0
    assert "Deleted profile" in capsys.readouterr().out
    assert store.learners.profiles(ADA) == [] and store.learners.last_profile(ADA) is None
    data = store.privacy.export_profiles(store.learners.profiles())
    assert [p["owner"] for p in data["profiles"]] == [BOB]
    assert "ada" not in json.dumps(data), "no row of Ada's is left in any table"
    assert [learner.email for learner in ClassView(store).class_learners()] == ["bob@uni.edu"]
    bob = store.learners.profiles(BOB)[0]
    assert len(open_store(class_url, course="other").work.attempts(bob)) == 1


def test_delete_by_profile_keeps_the_identitys_other_profiles(class_url):
    store = open_store(class_url)
    spare = store.learners.add_profile("second", ADA)
    first = store.learners.profiles(ADA)[0]
    assert main(["--url", class_url, "delete", "--profile", str(first.id), "--yes"]) == 0
    assert store.learners.profiles(ADA) == [spare]


def test_an_unknown_learner_is_one_line_and_status_2(class_url, capsys):
    assert main(["--url", class_url, "export", "--identity", "https://id.uni.edu 99"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == "No profile with identity 'https://id.uni.edu 99' in this database."


def test_an_export_and_a_deletion_are_audited_and_the_export_carries_its_own(class_url, capsys):
    store = open_store(class_url)
    ada = store.learners.profiles(ADA)[0]
    assert main(["--url", class_url, "export", "--identity", ADA]) == 0
    (exported,) = json.loads(capsys.readouterr().out)["profiles"]
    (entry,) = exported["audit"]
    assert (entry["action"], entry["subject"], entry["detail"]) == (
        "export", ADA, {"profiles": [ada.id]},
    )  # fmt: skip
    assert entry["actor_name"].endswith("(command line)")
    assert main(["--url", class_url, "delete", "--identity", ADA, "--yes"]) == 0
    deleted, exported_entry = store.audit.entries()
    assert (deleted.action, deleted.subject) == ("delete", ADA)
    assert deleted.detail["profiles"] == [ada.id] and deleted.detail["rows"] > 7
    assert exported_entry.id == entry["id"]
    capsys.readouterr()
    assert main(["--url", class_url, "audit", "--last", "1"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["format"] == "backprop-ninja/audit-log/1"
    assert [e["action"] for e in printed["entries"]] == ["delete"]
