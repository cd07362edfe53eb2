"""The navigation (app/nav.py): its pages are built once per what they show and copied per run,
so a status, an edited or new exercise file and the visitor's role still change what is sent."""

from __future__ import annotations

from app import links, services
from app.storage import Attempt

from .app_helpers import main_test, nav_sections


def _pages() -> dict:
    """Return the pages of the navigation a new session builds, by url path."""
    return {p.url_path: p for group in nav_sections().values() for p in group}


def test_an_exercise_icon_follows_its_status_after_its_page_was_built(fake):
    assert _pages()["dprobs"].icon == links.UNTOUCHED_ICON
    main_test().run()  # creates the profile
    store = services.store()
    learner = store.learners.profiles()[0]
    store.work.record_attempt(learner, Attempt("dprobs", "x", False, "", 0, 0, "default"))
    assert _pages()["dprobs"].icon == links.ICONS["attempted"]
    store.work.record_attempt(learner, Attempt("dprobs", "x", True, "", 0, 0, "default"))
    assert _pages()["dprobs"].icon == links.ICONS["solved"]
    assert _pages()["dlogprobs"].icon == links.UNTOUCHED_ICON


def test_an_edited_title_and_a_new_exercise_file_reach_the_navigation(fake, broken_exercises):
    assert "dextra" not in _pages()
    source = broken_exercises / "01_mlp" / "01_dlogprobs.toml"
    (broken_exercises / "01_mlp" / "98_dextra.toml").write_text(
        source.read_text().replace('title = "', 'title = "extra: ', 1)
    )
    source.write_text(source.read_text().replace('title = "', 'title = "edited: ', 1))
    pages = _pages()
    assert pages["dextra"].title.startswith("extra: ")
    assert pages["dlogprobs"].title.startswith("edited: ")


def test_an_instructor_and_a_learner_see_their_own_pages(fake, monkeypatch):
    def shown() -> dict:
        return {url: p.visibility for url, p in _pages().items() if url == links.INSTRUCTOR}

    assert shown() == {links.INSTRUCTOR: "hidden"}
    monkeypatch.setenv("NINJA_INSTRUCTOR", "1")
    assert shown() == {links.INSTRUCTOR: "visible"}
    monkeypatch.delenv("NINJA_INSTRUCTOR")
    assert shown() == {links.INSTRUCTOR: "hidden"}


def test_two_runs_never_share_a_page_object(fake):
    first, second = _pages(), _pages()
    assert first.keys() == second.keys()
    assert all(first[url] is not second[url] for url in first), (
        "st.navigation marks the page it returns as runnable once: a shared one could be run by"
        " the other session"
    )
