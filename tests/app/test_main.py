"""The whole app from app/main.py: navigation, the sidebar, a malformed exercise file."""

from __future__ import annotations

import ast

from streamlit.commands import page_config
from streamlit.testing.v1 import AppTest

from app import links, services
from app.storage import Attempt
from app.views import style

from .app_helpers import BROWSER, MAIN, SOLVED, TIMEOUT, main_test, nav_sections, submit, texts


def test_home_is_the_first_page_and_every_exercise_has_a_page(fake):
    at = main_test().run()
    assert not at.exception
    assert at.title[0].value == "Backprop Ninja"
    sections = _sections()
    pages = [url for group in sections.values() for url in group]
    exercises = [e.id for e in services.catalog().exercises]
    assert pages[:2] == ["", "progress"]
    assert set(exercises) <= set(pages)
    assert {"whole_pass", "training"} <= set(pages)
    assert "Problems" not in sections


def test_sections_follow_the_exercise_groups_and_end_with_training(fake):
    sections = list(_sections())
    assert sections[1] == "Exercise 1: backprop step by step"
    assert sections[-1] == links.TRAINING_SECTION


def test_the_navigation_names_exercises_by_their_titles(fake):
    def script():
        import streamlit as st

        from app import nav

        st.session_state["titles"] = [p.title for v in nav.sections().values() for p in v]

    titles = AppTest.from_function(script, default_timeout=TIMEOUT).run().session_state["titles"]
    catalog = services.catalog()
    assert {e.title for e in catalog.exercises} <= set(titles)
    assert not {e.answer for e in catalog.exercises} & set(titles), "no bare variable names"
    assert {"dlogits: two paths through the max", "dlogits: cross-entropy in one go"} <= set(titles)


def test_continue_opens_the_first_exercise_then_next_moves_on(fake):
    at = main_test().run()
    at.button(key="home:continue").click().run()
    assert at.title[0].value.startswith("dlogprobs")
    at = submit(at, f"{SOLVED}\n")
    at.button(key="next:dlogprobs").click().run()
    assert at.title[0].value.startswith("dprobs")


def test_continue_returns_to_the_exercise_left_unsolved(fake):
    at = main_test().run()
    at.button(key="home:continue").click().run()
    at.button(key="next:dlogprobs").click().run()
    at.text_area[0].input("dprobs = 1  # half done\n").run()
    again = main_test().run()
    assert again.button(key="home:continue").label.endswith(": dprobs")
    again.button(key="home:continue").click().run()
    assert again.text_area[0].value == "dprobs = 1  # half done\n"


def test_a_malformed_exercise_file_is_listed_and_the_rest_work(fake, broken_exercises, instructor):
    at = main_test().run()
    assert not at.exception
    assert "99_broken.toml" in texts(at)
    assert "Problems" in _sections()
    at.button(key="home:continue").click().run()
    assert at.title[0].value.startswith("dlogprobs")


def test_a_new_profile_has_its_own_progress(fake):
    at = main_test().run()
    at.button(key="home:continue").click().run()
    submit(at, f"{SOLVED}\n")
    store = services.store()
    first = store.learners.profiles()[0]
    at = main_test().run()
    _create(at, "grace")
    assert at.selectbox(key="sidebar:profile").value == "grace"
    grace = next(p for p in store.learners.profiles() if p.name == "grace")
    assert (
        store.work.statuses(first) == {"dlogprobs": "solved"} and store.work.statuses(grace) == {}
    )
    assert store.learners.last_profile(BROWSER) == grace


def _create(at, name: str) -> None:
    """Create a profile through the sidebar form."""
    at.text_input(key="sidebar:new_profile").input(name)
    next(b for b in at.get("form_submit_button") if b.label == "Create").click()
    at.run()


def _sections() -> dict:
    """Return the url paths of the navigation, by section, as a new session builds it."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from app import nav

        st.session_state["sections"] = {
            k: [p.url_path for p in v] for k, v in nav.sections().items()
        }

    return AppTest.from_function(script, default_timeout=TIMEOUT).run().session_state["sections"]


def test_after_the_last_exercise_comes_its_whole_pass_or_home(fake):
    def script():
        from dataclasses import replace

        import streamlit as st

        from app import links, services

        catalog = services.catalog()
        mlp = tuple(e for e in catalog.exercises if e.scenario.slug == "01_mlp")
        cases = [("dlogprobs", catalog), ("dhprebn_fused", replace(catalog, exercises=mlp))]
        first_two = tuple(e for e in catalog.exercises if e.scenario.slug < "03")
        cases.append(("dx_ln_fused", replace(catalog, exercises=first_two)))
        cases.append((catalog.exercises[-1].id, catalog))
        for exercise_id, within in cases:
            label, target = links.next_after(exercise_id, within)
            st.text(f"{exercise_id} -> {label} -> /{target.url_path}")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert [t.value for t in at.text] == [
        "dlogprobs -> Next exercise: dprobs -> /dprobs",
        "dhprebn_fused -> Next: the whole pass -> /whole_pass",
        "dx_ln_fused -> Back to Home -> /",
        "dC_wn -> Next: the whole pass -> /whole_pass_04_wavenet",
    ]


def test_the_whole_pass_icon_shows_its_status_not_a_fixed_tick(fake):
    def icon() -> str:
        pages = [p for group in nav_sections().values() for p in group]
        return next(p.icon for p in pages if p.url_path == "whole_pass")

    assert icon() == links.UNTOUCHED_ICON
    main_test().run()  # creates the profile
    store = services.store()
    whole = links.whole_pass_id("01_mlp")
    store.work.record_attempt(
        store.learners.profiles()[0], Attempt(whole, "x", False, "", 0, 0, "default")
    )
    assert icon() == links.ICONS["attempted"]
    store.work.record_attempt(
        store.learners.profiles()[0], Attempt(whole, "x", True, "", 0, 0, "default")
    )
    assert icon() == links.ICONS["solved"]


def test_the_frame_draws_nothing_by_magic():
    # .streamlit/config.toml turns magic off (a lone visit compiled main.py again with it): a
    # bare expression here other than a call or the docstring would then silently show nothing
    tree = ast.parse(MAIN.read_text())
    exprs = [n for n in ast.walk(tree) if isinstance(n, ast.Expr)][1:]  # after the docstring
    assert exprs and all(isinstance(n.value, ast.Call) for n in exprs)
    assert "magicEnabled = false" in (MAIN.parents[1] / ".streamlit" / "config.toml").read_text()


def test_the_page_icon_is_the_app_s_own_ascii_one(fake, monkeypatch):
    asked = []
    drawn = page_config._get_favicon_string
    monkeypatch.setattr(page_config, "_get_favicon_string", lambda i: asked.append(i) or drawn(i))
    at = main_test().run()
    assert not at.exception
    assert asked == [style.PAGE_ICON], "Streamlit checks an emoji against its whole emoji table"
