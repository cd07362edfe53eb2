"""The app's door to grader/ and data/: one grader per dataset, exercises re-read on change."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from app import services

from ..app_helpers import TIMEOUT


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


def test_the_warm_up_computes_every_references_before_the_first_submission(app_env):
    warmup = services._warmup(*services._version())
    assert not services.warming_up(), "not started: nothing to wait for"
    warmup.begin()
    assert warmup.done.wait(300)
    assert not services.warming_up()
    chosen = services.grader("default")
    assert set(chosen._prepared) == {e.id for e in chosen.catalog.exercises}


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


def test_a_value_is_kept_for_one_script_run_and_computed_again_in_the_next():
    def script():
        import streamlit as st

        from app import services

        calls = st.session_state.setdefault("calls", [])
        for _ in range(3):
            services.once_per_run("count", lambda: calls.append(1) or len(calls))
        st.session_state["seen"] = services.once_per_run("count", lambda: -1)

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert at.session_state["calls"] == [1] and at.session_state["seen"] == 1
    at.run()
    assert at.session_state["calls"] == [1, 1] and at.session_state["seen"] == 2
    assert services.once_per_run("count", lambda: "outside") == "outside", "no run: no memo"


def test_an_exercise_file_added_between_two_runs_is_served_by_the_second(app_env, broken_exercises):
    def script():
        import streamlit as st

        from app import services

        st.session_state["ids"] = {e.id for e in services.catalog().exercises}

    at = AppTest.from_function(script, default_timeout=60).run()
    assert at.session_state["ids"] and "dextra" not in at.session_state["ids"]
    source = broken_exercises / "01_mlp" / "01_dlogprobs.toml"
    (broken_exercises / "01_mlp" / "98_dextra.toml").write_text(
        source.read_text().replace('title = "', 'title = "extra: ', 1)
    )
    at.run()
    assert "dextra" in at.session_state["ids"]
