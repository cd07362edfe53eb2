"""The class view's queries (app/classroom/classview.py) and the dashboard's figures from them
(app/classroom/classbook.py), on a store filled through its own calls."""

from __future__ import annotations

import json
from dataclasses import replace

import jsonschema
import pytest

from app.classroom import ClassView, classbook
from app.classroom.answers import Answers
from app.classroom.classview import Learner
from app.storage import REGRADE, Attempt, Facts, open_store
from grader import discover

from ..app_helpers import ROOT

ISS = "https://id.uni.test"


@pytest.fixture
def store(tmp_path):
    return open_store(f"sqlite:///{tmp_path}/progress.sqlite3")


def _attempt(exercise, solved, at, misconception="", spent=10.0, code="code", check=""):
    status = "solved" if solved else "not_solved"
    facts = Facts(True, check, misconception, status)
    return Attempt(exercise, code, solved, f"summary {at}", 0.01, spent, "default", at, facts)


def _learner(store, sub, name, groups=(), role="learner"):
    profile = store.learners.add_profile("learner", owner=f"{ISS} {sub}")
    ClassView(store).note_person(profile.owner, name, f"{sub}@uni.test", groups, role)
    return profile


@pytest.fixture
def klass(store):
    """Ada solves dlogprobs at her third attempt (two with misconceptions); Bob tries dprobs
    twice; Cy signed in and did nothing; Ivy is an instructor who solved dlogprobs."""
    ada = _learner(store, "ada", "Ada", ("A",))
    bob = _learner(store, "bob", "Bob", ("B",))
    _learner(store, "cy", "Cy", ("A", "B"))
    ivy = _learner(store, "ivy", "Ivy", role="instructor")
    store.work.record_attempt(ada, _attempt("dlogprobs", False, 100, "sign_flipped", code="-x"))
    store.work.record_attempt(ada, _attempt("dlogprobs", False, 110, "sign_flipped", code="-y"))
    store.work.record_attempt(ada, _attempt("dlogprobs", True, 120, spent=5.0))
    store.work.record_attempt(ada, _attempt("dlogprobs", False, 130, "bessel"))  # after solving
    store.work.record_attempt(bob, _attempt("dprobs", False, 100, "local_only"))
    store.work.record_attempt(bob, _attempt("dprobs", False, 200, check="rules"))
    store.work.record_attempt(ivy, _attempt("dlogprobs", True, 100))
    store.work.record_event(ada, "dlogprobs", "hint")
    store.work.record_event(ada, "dlogprobs", "reveal")
    return store, {"ada": ada, "bob": bob, "ivy": ivy}


def test_learners_are_named_by_their_person_and_instructors_left_out(klass):
    store, _ = klass
    learners = ClassView(store).class_learners()
    assert [(p.name, p.email, p.groups) for p in learners] == [
        ("Ada", "ada@uni.test", ("A",)),
        ("Bob", "bob@uni.test", ("B",)),
        ("Cy", "cy@uni.test", ("A", "B")),
    ]
    assert all(p.last_seen > 0 for p in learners)


def test_a_local_profile_without_a_person_is_a_learner_by_its_name(store):
    store.learners.add_profile("grace")
    assert ClassView(store).class_learners() == [Learner(1, "grace")]


def test_noting_a_person_again_updates_them(store):
    ClassView(store).note_person(f"{ISS} ada", "Ada", "ada@uni.test", ("A",), "learner")
    ClassView(store).note_person(f"{ISS} ada", "Ada L.", "ada@uni.test", ("B",), "learner")
    store.learners.add_profile("learner", owner=f"{ISS} ada")
    assert [(p.name, p.groups) for p in ClassView(store).class_learners()] == [("Ada L.", ("B",))]


def test_cells_count_attempts_and_what_it_took_to_solve(klass):
    store, who = klass
    cells = {(c.profile_id, c.exercise_id): c for c in ClassView(store).class_cells()}
    ada = cells[who["ada"].id, "dlogprobs"]
    assert (ada.attempts, ada.solved, ada.to_solve, ada.time_to_solve) == (4, True, 3, 25.0)
    assert ada.last_at == 130
    bob = cells[who["bob"].id, "dprobs"]
    assert (bob.attempts, bob.solved, bob.to_solve, bob.time_to_solve) == (2, False, 0, 0.0)


def test_a_regrade_is_not_a_try(klass):
    """`python -m app.regrade --apply` records old answers graded again: the dashboard counts
    neither as an attempt nor towards being stuck, but a solve it finds counts."""
    store, who = klass
    store.work.record_attempt(who["bob"], replace(_attempt("dprobs", False, 150), origin=REGRADE))
    store.work.record_attempt(who["bob"], replace(_attempt("dprobs", False, 160), origin=REGRADE))
    cells = {(c.profile_id, c.exercise_id): c for c in ClassView(store).class_cells()}
    assert cells[who["bob"].id, "dprobs"].attempts == 2
    assert ClassView(store).class_stuck(0, 3) == []
    store.work.record_attempt(who["bob"], replace(_attempt("dprobs", True, 170), origin=REGRADE))
    cells = {(c.profile_id, c.exercise_id): c for c in ClassView(store).class_cells()}
    bob = cells[who["bob"].id, "dprobs"]
    assert (bob.attempts, bob.solved, bob.to_solve) == (2, True, 2)


def test_cells_belong_to_the_store_course(tmp_path, klass):
    _, who = klass
    other = open_store(f"sqlite:///{tmp_path}/progress.sqlite3", course="attention")
    assert ClassView(other).class_cells() == []
    other.work.record_attempt(who["bob"], _attempt("dlogprobs", True, 300))
    assert [(c.exercise_id, c.solved) for c in ClassView(other).class_cells()] == [
        ("dlogprobs", True)
    ]


def test_misconceptions_are_counted_from_their_ids_with_the_latest_example(klass):
    store, _ = klass
    found = [
        (m.exercise_id, m.misconception, m.attempts, m.learners, m.example)
        for m in ClassView(store).class_misconceptions()
    ]
    assert found[0] == ("dlogprobs", "sign_flipped", 2, 1, "-y")
    assert {f[:2] for f in found[1:]} == {("dlogprobs", "bessel"), ("dprobs", "local_only")}


def test_stuck_means_many_recent_attempts_and_no_solve(klass):
    store, who = klass
    assert [
        (s.profile_id, s.exercise_id, s.attempts) for s in ClassView(store).class_stuck(0, 2)
    ] == [(who["bob"].id, "dprobs", 2)]
    assert ClassView(store).class_stuck(150, 2) == [], (
        "one of bob's attempts is older than the window"
    )
    assert ClassView(store).class_stuck(0, 3) == []


def test_a_learners_history_has_every_attempt_hints_and_reveals(klass):
    store, who = klass
    attempts, events = ClassView(store).class_history(who["ada"].id)
    assert [(a.code, a.solved, a.misconception) for a in attempts][:3] == [
        ("-x", False, "sign_flipped"),
        ("-y", False, "sign_flipped"),
        ("code", True, ""),
    ]
    assert [(e.exercise_id, e.kind) for e in events] == [
        ("dlogprobs", "hint"),
        ("dlogprobs", "reveal"),
    ]
    assert ClassView(store).class_history(who["bob"].id)[1] == []


def test_the_standing_attempt_is_the_first_solve_else_the_latest(klass):
    store, who = klass
    standing = {(a.profile_id, a.exercise_id): a for a in ClassView(store).class_standing()}
    assert standing[who["ada"].id, "dlogprobs"].created_at == 120
    assert standing[who["bob"].id, "dprobs"].created_at == 200


def test_the_grid_and_the_item_summaries(klass):
    store, who = klass
    columns = ("dlogprobs", "dprobs", "dcounts")
    grid = classbook.class_grid(
        ClassView(store).class_learners(), ClassView(store).class_cells(), columns
    )
    assert [r.learner.name for r in grid.rows] == ["Ada", "Bob", "Cy"]
    assert [[r.status(c) for c in columns] for r in grid.rows] == [
        ["solved", classbook.NOT_STARTED, classbook.NOT_STARTED],
        [classbook.NOT_STARTED, "attempted", classbook.NOT_STARTED],
        [classbook.NOT_STARTED] * 3,
    ]
    assert grid.groups() == ["A", "B"]
    assert [r.learner.name for r in grid.in_group("B").rows] == ["Bob", "Cy"]
    summaries = classbook.item_summaries(grid, ClassView(store).class_misconceptions())
    first = summaries[0]
    assert (first.solved, first.attempted, first.median_attempts, first.median_seconds) == (
        1,
        0,
        3,
        25.0,
    )
    assert [m.misconception for m in first.misconceptions] == ["sign_flipped", "bessel"]
    assert (summaries[1].solved, summaries[1].attempted, summaries[1].median_attempts) == (
        0,
        1,
        None,
    )


def test_gradebook_names_are_unique():
    learners = [Learner(1, "Ada", "ada@uni.test"), Learner(2, "Ada"), Learner(3, "Ada")]
    assert classbook.gradebook_names(learners) == {
        1: "ada@uni.test",
        2: "Ada (#2)",
        3: "Ada (#3)",
    }


def test_the_gradebook_is_grade_batchs_and_validates(klass):
    store, _ = klass
    catalog = discover()
    learners = ClassView(store).class_learners()
    names = classbook.gradebook_names(learners)
    files = classbook.gradebook_files(Answers(store).class_answers(), names, catalog)
    book = json.loads(files["json"])
    schema = json.loads((ROOT / "docs" / "gradebook.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(book)
    by_name = {entry["learner"]: entry for entry in book["learners"]}
    assert set(by_name) == {"ada@uni.test", "bob@uni.test", "cy@uni.test"}
    assert by_name["ada@uni.test"]["solved"] == 1 and by_name["cy@uni.test"]["items"] == []
    bob = by_name["bob@uni.test"]["items"][0]
    assert (bob["item"], bob["status"], bob["integrity"]) == ("dprobs", "not_solved", "autograd")
    assert files["csv"].startswith(b"\xef\xbb\xbf") and b"dlogprobs" in files["wide.csv"]


def test_the_grid_counts_an_answer_at_its_regraded_verdict(store):
    """A regrade (app.regrade --apply: the same code and time, origin regrade) that no longer
    solves an answer takes its solve out of the grid; one that solves it puts it in (issue 35)."""
    ada, bob = _learner(store, "ada", "Ada"), _learner(store, "bob", "Bob")
    solved, wrong = _attempt("dxhat", True, 100, code="a"), _attempt("dxhat", False, 100, code="b")
    store.work.record_attempt(ada, solved)
    store.work.record_attempt(bob, wrong)
    store.work.record_attempt(ada, replace(solved, solved=False, origin=REGRADE))
    store.work.record_attempt(bob, replace(wrong, solved=True, origin=REGRADE))
    cells = {c.profile_id: c for c in ClassView(store).class_cells()}
    assert (cells[ada.id].solved, cells[ada.id].attempts) == (False, 1)
    assert (cells[bob.id].solved, cells[bob.id].attempts) == (True, 1)
    store.work.record_attempt(ada, replace(solved, code="a again", created_at=200))
    assert {c.profile_id: c.solved for c in ClassView(store).class_cells()}[ada.id]
