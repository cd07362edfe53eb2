"""Home: the progress map, continue where I left off, the dataset in use."""

from __future__ import annotations

import shutil

from app import services
from app.screens.home import next_exercise
from app.storage import Attempt
from grader.course.exercises import EXERCISES_DIR

from ..app_helpers import (
    SOLVED,
    VALUES,
    every_page_renders,
    main_test,
    nav_sections,
    page_test,
    texts,
)


def _attempt(exercise_id: str, solved: bool) -> None:
    store = services.store()
    profile = store.learners.profiles()[0]
    store.work.record_attempt(
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
    profile = services.store().learners.profiles()[0]
    assert next_exercise(catalog, [], {}) == "dlogprobs"
    _attempt("dprobs", True)
    store = services.store()
    assert next_exercise(catalog, store.work.progress(profile), store.work.statuses(profile)) == (
        "dcounts_sum_inv"
    )
    statuses = {e.id: "solved" for e in catalog.exercises}
    assert next_exercise(catalog, store.work.progress(profile), statuses) is None


def test_next_exercise_follows_the_lecture_before_another_scenario(fake):
    catalog = services.catalog()
    page_test(page="home").run()
    profile = services.store().learners.profiles()[0]
    lecture = [e.id for e in catalog.exercises if e.scenario.slug == "01_mlp"]
    for exercise_id in lecture[:3] + lecture[-1:]:
        _attempt(exercise_id, True)
    store = services.store()
    got = next_exercise(catalog, store.work.progress(profile), store.work.statuses(profile))
    assert got == lecture[3], "the lecture's first gap, not the next scenario's first step"
    _attempt("dxhat", True)
    got = next_exercise(catalog, store.work.progress(profile), store.work.statuses(profile))
    assert got == "drstd", "within the scenario last worked on, the next step"


def _course(tmp_path, monkeypatch, text: str, scenarios=("02_layernorm",)):
    """Point the app at an exercises folder of these scenarios with this course.toml."""
    root = tmp_path / "exercises"
    root.mkdir()
    for slug in scenarios:
        shutil.copytree(EXERCISES_DIR / slug, root / slug)
    (root / "course.toml").write_text(text)
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(root))
    return root


def _urls() -> list[str]:
    return [p.url_path for group in nav_sections().values() for p in group]


def test_a_course_folder_brings_its_title_and_intro_and_no_training(fake, tmp_path, monkeypatch):
    intro = "Three gradients of **one** normalisation."
    _course(tmp_path, monkeypatch, f'title = "LayerNorm by hand"\nintro = "{intro}"\n')
    at = main_test().run()
    assert not at.exception
    assert at.title[0].value == "LayerNorm by hand"
    assert intro in [m.value for m in at.markdown]
    assert "Backprop Ninja" not in texts(at) and "makemore" not in texts(at)
    assert "Dataset" not in [h.value for h in at.header]  # no scenario of this course uses one
    assert "training" not in _urls() and "dxhat" in _urls()
    every_page_renders()


def test_a_course_may_leave_out_the_training_page(fake, tmp_path, monkeypatch):
    _course(tmp_path, monkeypatch, "training = false\n", scenarios=("01_mlp",))
    assert "training" not in _urls() and "dlogprobs" in _urls()
    at = page_test(page="home").run()
    assert "Exercise 4: train the MLP" not in [s.value for s in at.subheader]
    assert at.title[0].value == "Backprop Ninja"
    training = page_test(page="training").run()
    assert not training.exception and "no training page" in training.info[0].value


def test_a_bad_course_key_is_listed_and_the_rest_of_the_course_serves(
    fake, tmp_path, monkeypatch, instructor
):
    root = _course(tmp_path, monkeypatch, 'title = "Mine"\ncolour = "red"\n')
    problems = page_test(page="problems").run()
    assert f"{root / 'course.toml'}: colour`: unknown key" in problems.error[0].value
    at = main_test().run()
    assert not at.exception and at.title[0].value == "Mine", "only the bad key is refused"


def test_runs_kept_from_another_course_link_to_no_training_page(fake, tmp_path, monkeypatch):
    from app.storage import TrainingRun

    _course(tmp_path, monkeypatch, 'title = "LayerNorm by hand"\n')
    page_test(page="progress").run()
    store = services.store()
    run = TrainingRun({"steps": 1000}, 2.41, 2.45, ("emma",), 812.0, 1.3, (3.3, 2.4), "default", "")
    store.runs.record_run(store.learners.profiles()[0], run)
    shown = page_test(page="progress").run()
    assert not shown.exception and any("val loss" in d.value.columns for d in shown.dataframe)
    links = [link.proto.label for link in shown.get("page_link")]
    assert not any("training page" in label for label in links), "no link to a page not served"


def test_a_course_with_no_scenario_yet_still_serves_its_pages(fake, tmp_path, monkeypatch):
    _course(tmp_path, monkeypatch, 'title = "Coming soon"\n', scenarios=())
    at = main_test().run()
    assert not at.exception and at.title[0].value == "Coming soon"
    assert _urls() == ["", "progress", "instructor"]  # the dashboard: the instructor's
    every_page_renders()
