"""The pages' addresses, titles and icons, in one place: what a screen links to, and what the
navigation (app/nav.py) registers with each page's callable.

A page built here without its callable is a link: Streamlit finds a page by its address, so
`st.page_link(links.exercise_page("dprobs"))` opens the page app/nav.py registered there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

from app import services
from app.storage import ATTEMPTED, SOLVED

if TYPE_CHECKING:
    from grader import Catalog

HOME, PROGRESS, TRAINING, PROBLEMS = "home", "progress", "training", "problems"
INSTRUCTOR = "instructor"  # the instructor's dashboard
WHOLE_PASS = "whole_pass"
TRAINING_SECTION = "Exercise 4: train the MLP"
ICONS = {SOLVED: ":material/check_circle:", ATTEMPTED: ":material/pending:"}
UNTOUCHED_ICON = ":material/radio_button_unchecked:"
CHECKING_ICON = ":material/hourglass_top:"


def page(
    name: str,
    title: str | None = None,
    render: Callable[[], None] | None = None,
    visibility: str = "visible",
):
    """Return one of the fixed pages (home, progress, training, problems, instructor); a hidden
    one is served at its address but not listed in the navigation."""
    titles = {
        HOME: "Home",
        PROGRESS: "Progress",
        TRAINING: "Train the MLP",
        PROBLEMS: "Problems",
        INSTRUCTOR: "Dashboard",
    }
    icons = {
        HOME: ":material/home:",
        PROGRESS: ":material/insights:",
        TRAINING: ":material/model_training:",
        PROBLEMS: ":material/error:",
        INSTRUCTOR: ":material/dashboard:",
    }
    return st.Page(
        render or _link(name),
        title=title or titles[name],
        icon=icons[name],
        url_path=None if name == HOME else name,
        default=name == HOME,
        visibility=visibility,
    )


def exercise_page(
    exercise_id: str,
    title: str | None = None,
    icon: str | None = None,
    render: Callable[[], None] | None = None,
):
    """Return the page of one exercise (url: the exercise id)."""
    return st.Page(
        render or _link("exercise", exercise_id),
        title=title or exercise_id,
        icon=icon or UNTOUCHED_ICON,
        url_path=exercise_id,
    )


def whole_pass_page(
    slug: str,
    catalog: Catalog | None = None,
    render: Callable[[], None] | None = None,
    icon: str | None = None,
):
    """Return the whole-pass page of a scenario (url: whole_pass, or whole_pass_<slug>); its
    icon is its status's, as an exercise's (never a fixed tick that reads "done")."""
    catalog = catalog or services.catalog()
    first = next(s.slug for s in catalog.scenarios if s.whole_pass)
    scenario = catalog.scenario(slug)
    return st.Page(
        render or _link(WHOLE_PASS, slug),
        title=f"Whole pass: all {len(scenario.whole_pass)}",
        icon=icon or UNTOUCHED_ICON,
        url_path=WHOLE_PASS if slug == first else f"{WHOLE_PASS}_{slug}",
    )


def next_after(exercise_id: str, catalog: Catalog | None = None) -> tuple[str, st.Page]:
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


def _link(*name: str) -> Callable[[], None]:
    """Return the stand-in callable of a page used as a link (never run: Streamlit runs the
    page that app/nav.py registered at the same address)."""

    def link() -> None:
        raise RuntimeError(f"the page {name!r} was not registered by app/nav.py")

    link.__name__ = "_".join(name)
    return link
