"""The app's door to grader/ and data/: one grader per dataset, exercises re-read on change."""

from __future__ import annotations

import importlib.util
import inspect
import logging
import os
import sys

import pytest
from streamlit.testing.v1 import AppTest

from app import services, session
from app.storage import store as store_module
from app.storage.engine import make_engine
from app.storage.schema import current, head

from ..app_helpers import ROOT, TIMEOUT, main_test

NAMES = ROOT.parent / "shared" / "data" / "names.txt"


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


def test_the_warm_up_migrates_a_fresh_data_folders_database_before_the_first_page_run(
    fake, monkeypatch
):
    fake.prepared = lambda exercise: None  # the references: the test above
    path = services.config().data_dir / "progress.sqlite3"
    assert not path.exists(), "a fresh data folder"
    services._warm()
    engine = make_engine(f"sqlite:///{path}")
    assert current(engine) == head(), "the warm-up created the file at the code's schema"
    engine.dispose()
    migrated = []
    monkeypatch.setattr(store_module, "upgrade", migrated.append)
    at = main_test().run()
    assert not at.exception and at.title[0].value == "Backprop Ninja"
    assert migrated == [], "the first page run opened the store again"


def test_the_warm_up_leaves_a_server_database_behind_the_code_as_it_is_and_goes_on(
    fake, monkeypatch, postgres, caplog
):
    url = postgres.new_database()
    monkeypatch.setenv("NINJA_DATABASE_URL", url)
    computed = []
    fake.prepared = computed.append
    with caplog.at_level(logging.WARNING, logger="app.services"):
        services._warm()
    engine = make_engine(url)
    assert current(engine) is None, "only the upgrade command migrates a server database"
    engine.dispose()
    assert "not opened at start: SchemaBehind" in caplog.text
    assert len(computed) == len(fake.catalog.exercises), "the references, all the same"


def test_the_warm_up_maps_the_modules_loaded_before_it_to_their_files(fake, tmp_path, monkeypatch):
    fake.prepared = lambda exercise: None
    path = tmp_path / "ninja_loaded_late.py"
    path.write_text("")
    spec = importlib.util.spec_from_file_location("ninja_loaded_late", path)
    late = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(late)
    monkeypatch.setitem(sys.modules, "ninja_loaded_late", late)  # loaded, as an import leaves it
    services._warm()
    assert os.path.realpath(late.__file__) in inspect.modulesbyfile


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


def test_an_exercise_file_edited_between_two_runs_gives_a_new_version_and_grader(
    app_env, broken_exercises
):
    def script():
        import streamlit as st

        from app import services

        chosen = services.grader("default")
        st.session_state["seen"] = (services.exercise_version("dlogprobs"), chosen)
        st.session_state["again"] = services.grader("default") is chosen

    at = AppTest.from_function(script, default_timeout=60).run()
    version, first = at.session_state["seen"]
    at.run()
    assert at.session_state["seen"] == (version, first), "nothing edited: the same grader"
    source = broken_exercises / "01_mlp" / "01_dlogprobs.toml"
    source.write_text(source.read_text().replace('title = "', 'title = "edited: ', 1))
    at.run()
    assert not at.exception and at.session_state["again"]
    edited, second = at.session_state["seen"]
    assert edited != version and second is not first
    assert second.catalog.get("dlogprobs").title.startswith("edited: ")


@pytest.mark.skipif(not NAMES.exists(), reason=f"the lecture's names.txt is not at {NAMES}")
def test_a_dataset_chosen_in_another_tab_changes_the_grader_at_the_next_run(app_env):
    def script():
        import streamlit as st

        from app import session

        st.session_state["fingerprint"] = session.grader().dataset.fingerprint

    (app_env / "cache").mkdir(parents=True, exist_ok=True)
    (app_env / "cache" / "names.txt").write_bytes(NAMES.read_bytes())
    at = AppTest.from_function(script, default_timeout=60).run()
    first = at.session_state["fingerprint"]
    assert first == services.dataset("default").fingerprint
    me = services.store().learners.profiles()[0]
    services.store().learners.set_setting(me, session.DATASET_SETTING, "names")
    at.run()
    assert not at.exception
    assert at.session_state["fingerprint"] == services.dataset("names").fingerprint != first
