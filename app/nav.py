"""The pages, built from the discovered exercises: an instructor's new file is a new page."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import streamlit as st

from app import safety, services, session, sidebar, visits
from app.storage import ATTEMPTED, SOLVED

HOME, PROGRESS, TRAINING, PROBLEMS = "home", "progress", "training", "problems"
WHOLE_PASS = "whole_pass"
TRAINING_SECTION = "Exercise 4: train the MLP"
ICONS = {SOLVED: ":material/check_circle:", ATTEMPTED: ":material/pending:"}
UNTOUCHED_ICON = ":material/radio_button_unchecked:"


def sections() -> dict[str, list]:
    """Return the navigation: home and progress, one section per exercise group, training (where
    the course has it), and the problems with the exercise files (if any).

    Home is drawn while the scenarios run for the first time (their exercises appear once they
    have); an address of any other page waits for them, so that a link to an exercise opens it.
    """
    if _address():
        services.ran_catalog(wait=True)
    catalog = services.catalog()
    statuses = services.store().statuses(session.profile())
    found: dict[str, list] = {"": [page(HOME), page(PROGRESS)]}
    for exercise in catalog.exercises:
        icon = ICONS.get(statuses.get(exercise.id), UNTOUCHED_ICON)
        group = exercise.group or exercise.scenario.title
        found.setdefault(group, []).append(exercise_page(exercise.id, exercise.title, icon))
    for scenario in catalog.scenarios:
        if scenario.whole_pass:
            section = _first_group(catalog, scenario.slug) or scenario.title
            found.setdefault(section, []).append(whole_pass_page(scenario.slug, catalog))
    if services.training_available(catalog):
        found[TRAINING_SECTION] = [page(TRAINING)]
    if catalog.errors:
        found["Problems"] = [page(PROBLEMS, f"Problems ({len(catalog.errors)})")]
    elif services.proofs_pending():
        found["Problems"] = [page(PROBLEMS, "Being checked")]
    return found


def page(name: str, title: str | None = None):
    """Return one of the fixed pages (home, progress, training, problems)."""
    titles = {
        HOME: "Home",
        PROGRESS: "Progress",
        TRAINING: "Train the MLP",
        PROBLEMS: "Problems",
    }
    icons = {
        HOME: ":material/home:",
        PROGRESS: ":material/insights:",
        TRAINING: ":material/model_training:",
        PROBLEMS: ":material/error:",
    }
    return st.Page(
        _runner(name),
        title=title or titles[name],
        icon=icons[name],
        url_path=None if name == HOME else name,
        default=name == HOME,
    )


def exercise_page(exercise_id: str, title: str | None = None, icon: str | None = None):
    """Return the page of one exercise (url: the exercise id)."""
    return st.Page(
        _runner("exercise", exercise_id),
        title=title or exercise_id,
        icon=icon or UNTOUCHED_ICON,
        url_path=exercise_id,
    )


def whole_pass_page(slug: str, catalog=None):
    """Return the whole-pass page of a scenario (url: whole_pass, or whole_pass_<slug>)."""
    catalog = catalog or services.catalog()
    first = next(s.slug for s in catalog.scenarios if s.whole_pass)
    scenario = catalog.scenario(slug)
    return st.Page(
        _runner(WHOLE_PASS, slug),
        title=f"Whole pass: all {len(scenario.whole_pass)}",
        icon=":material/done_all:",
        url_path=WHOLE_PASS if slug == first else f"{WHOLE_PASS}_{slug}",
    )


def next_after(exercise_id: str, catalog=None) -> tuple[str, object]:
    """Return the label and page that follow an exercise: the next one, a whole pass, or Home."""
    catalog = catalog or services.catalog()
    ids = [e.id for e in catalog.exercises]
    if exercise_id in ids[:-1]:
        following = ids[ids.index(exercise_id) + 1]
        return f"Next exercise: {following}", exercise_page(following)
    slug = catalog.get(exercise_id).scenario.slug
    if catalog.scenario(slug).whole_pass:
        return "Next: the whole pass", whole_pass_page(slug, catalog)
    return "Back to Home", page(HOME)


def whole_pass_id(slug: str) -> str:
    """Return the id under which a scenario's whole-pass attempts are recorded."""
    return f"{WHOLE_PASS}:{slug}"


def _first_group(catalog, slug: str) -> str:
    """Return the group of the scenario's first exercise, or ''."""
    return next((e.group for e in catalog.exercises if e.scenario.slug == slug), "")


def _address() -> str:
    """Return the last part of the address the browser asked for ('' for Home, or unknown)."""
    url = st.context.url or ""
    return url.split("://", 1)[-1].partition("/")[2].rstrip("/").rpartition("/")[2]


def _runner(module: str, *args) -> Callable[[], None]:
    """Return a page function: the sidebar, then `app.screens.<module>.render(*args)`, then
    the background work started (if not yet), so that the first page does not wait for it."""

    def run() -> None:
        visits.start(run.__name__)
        safety.guard()
        sidebar.show()
        try:
            importlib.import_module(f"app.screens.{module}").render(*args)
        finally:
            services.start_background()

    run.__name__ = "_".join([module, *args])
    return run
