"""The navigation: one page per discovered exercise (an instructor's new file is a new page),
each handed its screen's render function; addresses and titles come from app/links.py."""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

import streamlit as st

from app import classroom, links, services, session
from app.links import HOME, INSTRUCTOR, PROBLEMS, PROGRESS, TRAINING, TRAINING_SECTION
from app.screens import checking, home, instructor, problems, progress, training, whole_pass
from app.screens import exercise as exercise_screen

if TYPE_CHECKING:
    from streamlit.navigation.page import StreamlitPage

    from grader import Catalog

# The pages built so far, by what they show (`_kept`); the same for every session.
_PAGES: dict[Hashable, StreamlitPage] = {}
MAX_KEPT = 2000


def show() -> StreamlitPage:
    """Send the navigation (its icons read the learner's progress); return the page asked for.
    An exercise page calls it again once an attempt changes a status, in its fragment's run."""
    return st.navigation(sections(), expanded=True)


def sections() -> dict[str, list]:
    """Return the navigation: home and progress, one section per exercise group, training (where
    the course has it), and, for an instructor, the dashboard and the problems with the exercise
    files (if any); for anyone else the dashboard's address is served unlisted, and refuses them.

    Home is drawn while the scenarios run for the first time (their exercises appear once they
    have); an address of any other page waits for them, so that a link to an exercise opens it.
    In the classroom mode a visitor who has not signed in gets the sign-in page only.
    """
    if not classroom.admitted():
        return {"": [classroom.sign_in_entry()]}
    address = _address()
    if address:
        services.ran_catalog(wait=True)
    # Taken before the catalog: an exercise proven in between is then in the catalog, never in
    # neither (which would send its bookmark to Home).
    pending = services.proofs_pending()
    catalog = services.catalog()
    statuses = session.statuses()
    found: dict[str, list] = {"": [_fixed(HOME, home.render), _fixed(PROGRESS, progress.render)]}
    found[""].append(_dashboard())
    for exercise in catalog.exercises:
        icon = links.ICONS.get(statuses.get(exercise.id), links.UNTOUCHED_ICON)
        group = exercise.group or exercise.scenario.title
        found.setdefault(group, []).append(
            _kept(
                ("exercise", exercise.id, exercise.title, icon),
                lambda e=exercise, i=icon: links.exercise_page(
                    e.id, e.title, i, render=_page(exercise_screen.render, e.id, renavigate=show)
                ),
            )
        )
    _add_checking(found, address, catalog, pending)
    for scenario in catalog.scenarios:
        if scenario.whole_pass:
            section = _first_group(catalog, scenario.slug) or scenario.title
            page = _page(whole_pass.render, scenario.slug, renavigate=show)
            status = statuses.get(links.whole_pass_id(scenario.slug))
            icon = links.ICONS.get(status, links.UNTOUCHED_ICON)
            found.setdefault(section, []).append(
                links.whole_pass_page(scenario.slug, catalog, render=page, icon=icon)
            )
    if services.training_available(catalog):
        found[TRAINING_SECTION] = [_fixed(TRAINING, training.render)]
    if not classroom.is_instructor():
        return found
    if catalog.errors:
        found["Problems"] = [_fixed(PROBLEMS, problems.render, f"Problems ({len(catalog.errors)})")]
    elif services.proofs_pending():
        found["Problems"] = [_fixed(PROBLEMS, problems.render, "Being checked")]
    return found


def _dashboard():
    """Return the instructor's dashboard: listed for an instructor, served unlisted to anyone
    else (its address then refuses them, rather than being "Page not found")."""
    shown = "visible" if classroom.is_instructor() else "hidden"
    return _kept(
        ("fixed", INSTRUCTOR, shown),
        lambda: links.page(INSTRUCTOR, render=_page(instructor.render), visibility=shown),
    )


def _add_checking(
    found: dict[str, list], address: str, catalog: Catalog, pending: set[str]
) -> None:
    """Register the addressed exercise while it is being proven (pending: the ids not proven
    before the catalog was read): its page says so and opens the exercise once it is (a
    bookmark is never "Page not found" and never loses its URL)."""
    if address in {e.id for e in catalog.exercises} or address not in pending:
        return
    exercise = services.declared().get(address)
    group = exercise.group or exercise.scenario.title
    page = _page(checking.render, exercise.id)
    found.setdefault(group, []).append(
        links.exercise_page(exercise.id, exercise.title, links.CHECKING_ICON, render=page)
    )


def _fixed(name: str, render: Callable[[], None], title: str | None = None):
    """Return a fixed page (home, progress, training, problems) with its screen."""
    return _kept(("fixed", name, title), lambda: links.page(name, title, render=_page(render)))


def _kept(key: Hashable, build: Callable[[], StreamlitPage]) -> StreamlitPage:
    """Return a copy of the page build() returns, built once per key: everything the page
    shows (address, title, icon, visibility). st.Page checks its arguments at some cost and an
    open builds ~55; the copy is this run's own (st.navigation marks the page it returns as
    runnable once, and another session's run may be at it)."""
    kept = _PAGES.get(key)  # one look-up: another session's run may clear them meanwhile
    if kept is None:
        if len(_PAGES) > MAX_KEPT:  # titles edited many times over: start afresh
            _PAGES.clear()
        kept = _PAGES[key] = build()
    return copy.copy(kept)


def _page(render: Callable[..., None], *args: str, **kwargs: object) -> Callable[[], None]:
    """Return a page callable: the screen's render function with its arguments (main.py draws
    the frame around it)."""

    def run() -> None:
        render(*args, **kwargs)

    run.__name__ = "_".join([render.__module__.rpartition(".")[2], *args])
    return run


def _first_group(catalog: Catalog, slug: str) -> str:
    """Return the group of the scenario's first exercise, or ''."""
    return next((e.group for e in catalog.exercises if e.scenario.slug == slug), "")


def _address() -> str:
    """Return the last part of the address the browser asked for ('' for Home, or unknown)."""
    url = st.context.url or ""
    return url.split("://", 1)[-1].partition("/")[2].rstrip("/").rpartition("/")[2]
