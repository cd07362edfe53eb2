"""Home: the progress map, continue where I left off, the dataset in use."""

from __future__ import annotations

from app import services
from app.screens.home import next_exercise
from app.storage import Attempt

from .app_helpers import SOLVED, VALUES, page_test, texts


def _attempt(exercise_id: str, solved: bool) -> None:
    store = services.store()
    profile = store.profiles()[0]
    store.record_attempt(
        profile,
        Attempt(exercise_id, SOLVED if solved else VALUES, solved, "", 0.01, 5.0, "default"),
    )


def test_home_shows_the_map_grouped_as_the_lecture(fake):
    at = page_test(page="home").run()
    assert not at.exception
    subheaders = [s.value for s in at.subheader]
    assert subheaders[:3] == [
        "Exercise 1: backprop step by step",
        "Exercise 2: cross-entropy in one go",
        "Exercise 3: batchnorm in one go",
    ]
    assert "Exercise 4: train the MLP" in subheaders
    assert "0 of 26 solved" in texts(at)  # Exercise 1


def test_the_map_counts_solved_exercises(fake):
    page_test(page="home").run()  # creates the first profile
    _attempt("dlogprobs", True)
    _attempt("dprobs", False)
    at = page_test(page="home").run()
    assert "1 of 26 solved" in texts(at)
    assert at.button(key="home:continue").label == "Continue where I left off: dprobs"


def test_home_shows_the_dataset_and_model_figures(fake):
    text = texts(page_test(page="home").run())
    assert "30,460 words, vocabulary 27" in text
    assert "4,137 parameters" in text


def test_next_exercise_is_the_last_unsolved_one_touched_else_the_next_unsolved(fake):
    catalog = services.catalog()
    page_test(page="home").run()
    profile = services.store().profiles()[0]
    assert next_exercise(catalog, [], {}) == "dlogprobs"
    _attempt("dprobs", True)
    store = services.store()
    assert next_exercise(catalog, store.progress(profile), store.statuses(profile)) == (
        "dcounts_sum_inv"
    )
    statuses = {e.id: "solved" for e in catalog.exercises}
    assert next_exercise(catalog, store.progress(profile), statuses) is None
