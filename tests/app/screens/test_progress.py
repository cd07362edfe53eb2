"""The progress page: the table, the CSV, and reset with confirmation."""

from __future__ import annotations

import io
from dataclasses import replace

import pandas as pd

from app import services
from app.screens.progress import csv_text, progress_table
from app.storage import Attempt, Facts
from grader.course import Course, Practice

from ..app_helpers import page_test


def _seed() -> None:
    page_test(page="progress").run()
    store = services.store()
    profile = store.learners.profiles()[0]
    store.work.record_attempt(
        profile, Attempt("dlogprobs", "x", False, "no", 0.01, 60.0, "default")
    )
    store.work.record_attempt(
        profile, Attempt("dlogprobs", "y", True, "yes", 0.01, 30.0, "default")
    )
    store.work.record_event(profile, "dlogprobs", "hint")


def test_the_table_has_one_row_per_exercise_with_attempts_and_time(fake):
    _seed()
    at = page_test(page="progress").run()
    assert not at.exception
    table = at.dataframe[0].value
    catalog = services.catalog()
    passes = sum(1 for scenario in catalog.scenarios if scenario.whole_pass)
    assert len(table) == len(catalog.exercises) + passes
    row = table[table["exercise"] == "dlogprobs"].iloc[0]
    assert (row["status"], row["attempts"], row["minutes"], row["hints"]) == ("solved", 2, 1.5, 1)
    wholes = [f"whole_pass:{s.slug}" for s in catalog.scenarios if s.whole_pass]
    assert list(table["exercise"])[-passes:] == wholes
    assert [m.value for m in at.metric] == [f"1 of {len(table)}", "2", "2 min"]


def test_the_csv_holds_the_table(fake):
    _seed()
    at = page_test(page="progress").run()
    button = at.get("download_button")[0]
    assert button.proto.label == "Download as CSV"
    profile = services.store().learners.profiles()[0]
    table = progress_table(services.catalog(), services.store().work.progress(profile))
    frame = pd.read_csv(io.StringIO(csv_text(table)))
    assert list(frame.columns) == [
        "exercise",
        "title",
        "status",
        "attempts",
        "minutes",
        "hints",
        "revealed",
    ]
    assert frame.loc[frame["exercise"] == "dlogprobs", "attempts"].item() == 2
    assert frame.equals(pd.read_csv(io.StringIO(csv_text(at.dataframe[0].value))))


def test_reset_asks_first_then_deletes(fake):
    _seed()
    at = page_test(page="progress").run()
    at.button(key="progress:reset").click().run()
    assert "cannot be undone" in at.warning[0].value
    at.button(key="progress:reset_no").click().run()
    assert services.store().work.attempts(services.store().learners.profiles()[0])
    at.button(key="progress:reset").click().run()
    at.button(key="progress:reset_yes").click().run()
    assert not services.store().work.attempts(services.store().learners.profiles()[0])
    assert at.dataframe[0].value["attempts"].sum() == 0


KEEPDIM = Facts(True, "form", "keepdim_lost", "not_solved")  # the sentence says nothing here


def test_two_keepdim_mistakes_suggest_practising_the_broadcast_rule(fake):
    page_test(page="progress").run()
    store = services.store()
    profile = store.learners.profiles()[0]
    for exercise in ("dbngain", "dbnbias"):
        attempt = Attempt(exercise, "x", False, "said anyhow", 0.01, 5.0, "default", facts=KEEPDIM)
        store.work.record_attempt(profile, attempt)
    at = page_test(page="progress").run()
    assert not at.exception
    assert any("2 mistakes about a kept dim" in m.value for m in at.markdown)
    (link,) = [p for p in at.get("page_link") if "Practise it on" in p.proto.label]
    assert link.proto.label == "Practise it on dxhat", "LayerNorm: the same rule, not yet solved"


def test_one_mistake_suggests_nothing_yet():
    from app.screens.progress import suggestion

    course = services.catalog().course
    one = [Attempt("dbngain", "x", False, "", 0.0, 1.0, "default", facts=KEEPDIM)]
    assert suggestion(one, {}, {"dxhat"}, course) is None
    assert suggestion(one * 2, {"dxhat": "solved"}, {"dxhat", "drstd"}, course)[0] == "drstd"


def _mistakes(*ids: str) -> list[Attempt]:
    """Return one unsolved attempt per misconception id, with no sentence at all."""
    return [Attempt("dh", "x", False, "", 0.0, 1.0, "d", facts=Facts(True, "", i)) for i in ids]


def test_the_suggestion_is_the_courses_practice_for_the_id_made_most():
    from app.screens.progress import suggestion

    course = Course(
        practice=(
            Practice(("sign_flipped",), ("a", "b"), "signs"),
            Practice(("bessel", "constant_factor"), ("c",), "constants"),
        )
    )
    attempts = _mistakes("sign_flipped", "bessel", "constant_factor", "sign_flipped", "bessel")
    assert suggestion(attempts, {}, {"a", "b", "c"}, course) == (
        "c",
        "You made 3 mistakes about constants.",
    )
    assert suggestion(attempts, {"c": "solved"}, {"a", "b", "c"}, course)[0] == "a"
    assert suggestion(attempts, {}, {"a", "b", "c"}, Course()) is None, "a course may declare none"
    solved = [replace(a, solved=True) for a in attempts]
    assert suggestion(solved, {}, {"a", "b", "c"}, course) is None


def test_the_shipped_course_declares_where_to_practise_what_progress_suggested_before():
    course = services.catalog().course
    rules = {i: p.rule for p in course.practice for i in p.misconceptions}
    assert "kept dim" in rules["keepdim_lost"] and "minus" in rules["sign_flipped"]
    assert course.practice_for("keepdim_lost").exercises[0] == "dxhat"
    assert course.practice_for("listed_mistake") is None


def test_the_history_links_every_attempt_newest_first(fake):
    from app.screens.progress import history_table

    attempts = [
        Attempt("dlogprobs", "x", False, "no", 0.0, 1.0, "default", created_at=100.0),
        Attempt("whole_pass:01_mlp", "y", True, "All right", 0.0, 1.0, "default", 200.0),
        Attempt("whole_pass:03_attention", "z", False, "no", 0.0, 1.0, "default", 300.0),
    ]
    table = history_table(attempts, "01_mlp")
    assert list(table["exercise"]) == [
        "./whole_pass_03_attention",
        "./whole_pass",
        "./dlogprobs",
    ]
    assert list(table["verdict"]) == ["not yet", "solved", "not yet"]
    _seed()
    at = page_test(page="progress").run()
    assert any("History" in h.value for h in at.header)
    assert len(at.dataframe[1].value) == 2


def test_finished_training_runs_are_listed(fake):
    from app.storage import TrainingRun

    page_test(page="progress").run()
    store = services.store()
    profile = store.learners.profiles()[0]
    run = TrainingRun({"steps": 1000}, 2.41, 2.45, ("emma",), 812.0, 1.3, (3.3, 2.4), "default", "")
    store.runs.record_run(profile, run)
    at = page_test(page="progress").run()
    runs = next(d.value for d in at.dataframe if "val loss" in d.value.columns)
    assert runs.iloc[0]["steps"] == 1000 and runs.iloc[0]["val loss"] == 2.45
