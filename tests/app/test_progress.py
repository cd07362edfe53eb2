"""The progress page: the table, the CSV, and reset with confirmation."""

from __future__ import annotations

import io

import pandas as pd
from app_helpers import page_test

from app import services
from app.screens.progress import csv_text, progress_table
from app.storage import Attempt


def _seed() -> None:
    page_test(page="progress").run()
    store = services.store()
    profile = store.profiles()[0]
    store.record_attempt(profile, Attempt("dlogprobs", "x", False, "no", 0.01, 60.0, "default"))
    store.record_attempt(profile, Attempt("dlogprobs", "y", True, "yes", 0.01, 30.0, "default"))
    store.record_event(profile, "dlogprobs", "hint")


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
    profile = services.store().profiles()[0]
    table = progress_table(services.catalog(), services.store().progress(profile))
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
    assert services.store().attempts(services.store().profiles()[0])
    at.button(key="progress:reset").click().run()
    at.button(key="progress:reset_yes").click().run()
    assert not services.store().attempts(services.store().profiles()[0])
    assert at.dataframe[0].value["attempts"].sum() == 0
