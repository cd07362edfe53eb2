"""The app's door to grader/ and data/: one grader per dataset, exercises re-read on change."""

from __future__ import annotations

from app import services


def test_a_new_exercise_file_appears_without_a_restart(app_env, broken_exercises):
    before = {e.id for e in services.catalog().exercises}
    source = broken_exercises / "01_mlp" / "01_dlogprobs.toml"
    (broken_exercises / "01_mlp" / "98_dextra.toml").write_text(
        source.read_text().replace('title = "', 'title = "extra: ', 1)
    )
    after = services.catalog()
    assert {e.id for e in after.exercises} - before == {"dextra"}
    assert any("99_broken.toml" in err.where for err in after.errors)


def test_one_grader_per_dataset_and_version_of_the_exercises(app_env):
    first = services.grader("default")
    assert services.grader("default") is first
    assert first.dataset.fingerprint == services.dataset("default").fingerprint


def test_the_training_page_needs_the_lecture_exercises_on_the_dataset_scenario():
    from dataclasses import replace

    from grader import discover
    from grader.course.course import Course

    catalog = discover()
    assert services.training_available(catalog)
    assert not services.training_available(replace(catalog, course=Course(training=False)))
    assert not services.training_available(catalog.withdraw((), exercises=("dW1",)))
    moved = [
        replace(e, scenario=replace(e.scenario, uses_dataset=False)) for e in catalog.exercises
    ]
    assert not services.training_available(replace(catalog, exercises=tuple(moved)))
