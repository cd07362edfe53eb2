"""The instructor's dashboard (/instructor): the class at a glance, each exercise, each learner,
who is stuck now, the gradebook, the exercise files' problems, and the audit log.

Only the course's instructor sees it (classroom.is_instructor()); the navigation lists it for
nobody else, and anyone else who opens its address gets LEARNERS and nothing of the class.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app import classroom, services
from app.classroom import ClassView, classbook
from app.classroom.classbook import STUCK_ATTEMPTS, STUCK_WINDOW, Grid
from app.panels import auditlog, grading, lmsbook, lmsgrades
from app.screens import problems
from app.storage import ATTEMPTED, SOLVED
from app.views import dashboard

if TYPE_CHECKING:
    from app.classroom.classbook import Row
    from app.classroom.classview import Learner, Misconception
    from grader import Catalog

TITLE = "Instructor dashboard"
LEARNERS = "This page is for the course's instructors only."
EVERYONE = "Everyone"
NOBODY = "No learner has signed in or made a profile yet."
COLOURS = {SOLVED: "#78b159", ATTEMPTED: "#f4900c"}  # the marks' green and orange
# A cell's colour is its mark's: a table of plain text paints fast and sorts by status.
MARKS = {SOLVED: "🟩", ATTEMPTED: "🟧"}
LEGEND = (
    f"{MARKS[SOLVED]} solved, {MARKS[ATTEMPTED]} attempted and not solved, each with its number"
    " of attempts; blank: not started."
)
TABS = ("Class", "Exercises", "Learner", "Stuck now", "Gradebook", "Problems", "Audit log")
TABS += ("Sign-ins and limits",)


def render() -> None:
    """Draw the dashboard for an instructor; anyone else is refused."""
    st.title(TITLE)
    if not classroom.is_instructor():
        st.error(LEARNERS, icon=":material/lock:")
        return
    dashboard.refreshing(_dashboard)


def _dashboard() -> None:
    """The tabs, read afresh from the store at each redraw."""
    view, catalog = classroom.ClassView(services.store()), services.declared()  # every item
    learners = view.class_learners()
    grid = classbook.class_grid(learners, view.class_cells(), classbook.course_items(catalog))
    tabs = st.tabs(TABS)
    with tabs[0]:
        _class(grid)
    with tabs[1]:
        _exercises(grid, view.class_misconceptions(), catalog)
    with tabs[2]:
        _learner(grid, view, catalog)
    with tabs[3]:
        _stuck(grid, view)
    with tabs[4]:
        _gradebook(learners, view, catalog)
    with tabs[5]:
        problems.render()
    with tabs[6]:
        auditlog.render()
    with tabs[7]:
        classroom.oversight.render(learners)


def _class(grid: Grid) -> None:
    """The grid, filtered by group where the provider sends groups, and a chart of it."""
    if not grid.rows:
        st.info(NOBODY, icon=":material/group_off:")
        return
    groups = grid.groups()
    if groups:
        group = st.selectbox("Group or section", [EVERYONE, *groups], key="dashboard_group")
        grid = grid.in_group(None if group == EVERYONE else group)
    solved = sum(r.solved for r in grid.rows)
    st.markdown(f"{len(grid.rows)} learner(s), {solved} exercise(s) solved in all.")
    st.caption(LEGEND + " Click a column's header to sort by it.")
    st.dataframe(_grid_table(grid), hide_index=True)
    counts = pd.DataFrame(
        {
            "solved": [sum(r.status(c) == SOLVED for r in grid.rows) for c in grid.columns],
            "attempted": [sum(r.status(c) == ATTEMPTED for r in grid.rows) for c in grid.columns],
        },
        index=pd.Index(grid.columns, name="exercise"),
    )
    st.subheader("Where the class is")
    colours = {"solved": COLOURS[SOLVED], "attempted": COLOURS[ATTEMPTED]}
    dashboard.bar_chart(counts.reset_index(), "exercise", colours)


def _grid_table(grid: Grid) -> pd.DataFrame:
    """Return the grid as a table: a row per learner, a cell per item ("✔ 3", "✗ 5", "")."""
    records = []
    for row in grid.rows:
        who = row.learner
        record = {"learner": who.name, "groups": ", ".join(who.groups)}
        record |= {"solved": row.solved, "attempts": row.attempts, "last seen": _when(who)}
        for item in grid.columns:
            cell = row.cells.get(item)
            record[item] = f"{MARKS[row.status(item)]} {cell.attempts}" if cell else ""
        records.append(record)
    return pd.DataFrame.from_records(records)


def _when(who: Learner) -> str:
    if not who.last_seen:
        return ""
    return datetime.fromtimestamp(who.last_seen, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _exercises(grid: Grid, misconceptions: list[Misconception], catalog: Catalog) -> None:
    """Each item: solved, attempted, medians, and its most common misconceptions, in words."""
    summaries = classbook.item_summaries(grid, misconceptions)

    def said(item: str, m: Misconception) -> str:
        return dashboard.said(catalog, item, m.misconception)

    table = pd.DataFrame.from_records(
        {
            "exercise": s.item,
            "solved": s.solved,
            "attempted, not solved": s.attempted,
            "median attempts to solve": dashboard.median(s.median_attempts),
            "median minutes to solve": dashboard.median(s.median_seconds, 60),
            "top misconception": said(s.item, s.misconceptions[0]) if s.misconceptions else "",
        }
        for s in summaries
    )
    st.dataframe(table, hide_index=True, width="stretch", column_config=dashboard.WORDS)
    if misconceptions:
        st.subheader("Misconceptions recorded")
        shown = misconceptions[:20]
        labels = [f"{m.exercise_id}: {said(m.exercise_id, m)}" for m in shown]
        chart = pd.DataFrame({"misconception": labels, "attempts": [m.attempts for m in shown]})
        dashboard.bar_chart(chart, "misconception", {"attempts": COLOURS[ATTEMPTED]})
    for s in summaries:
        for m in s.misconceptions:
            label = (
                f"{s.item}: {said(s.item, m)} ({m.attempts} attempt(s), {m.learners} learner(s))"
            )
            with st.expander(label):
                st.caption(f"Its id: `{m.misconception}`. An answer that showed it (the latest):")
                st.code(m.example, language="python")


def _learner(grid: Grid, view: ClassView, catalog: Catalog) -> None:
    """One learner's history: each attempt's code and verdict, hints and reveals."""
    if not grid.rows:
        st.info(NOBODY, icon=":material/group_off:")
        return
    rows = {r.learner.profile_id: r for r in grid.rows}
    chosen = st.selectbox(
        "Learner",
        list(rows),
        format_func=lambda i: _label(rows[i]),
        index=None,
        placeholder="Pick a learner",
        key="dashboard_learner",
        on_change=auditlog.learner_viewed,  # the audit log: whose history was opened
        args=("dashboard_learner",),
    )
    if chosen is None:
        return
    attempts, events = view.class_history(chosen)
    row = rows[chosen]
    st.markdown(
        "\n".join(f"- {_cell_line(item, row)}" for item in grid.columns if item in row.cells)
        or "Nothing attempted yet."
    )
    hints = sum(e.kind == "hint" for e in events)
    reveals = sorted({e.exercise_id for e in events if e.kind == "reveal"})
    st.markdown(
        f"{len(attempts)} attempt(s), {hints} hint(s) shown, "
        f"solutions revealed: {', '.join(reveals) or 'none'}."
    )
    if events:
        st.dataframe(
            pd.DataFrame.from_records(
                {"when": _at(e.created_at), "exercise": e.exercise_id, "what": e.kind}
                for e in events
            ),
            hide_index=True,
        )
    for a in reversed(attempts):
        wrong = a.misconception and dashboard.said(catalog, a.exercise_id, a.misconception)
        verdict = "solved" if a.solved else (wrong or a.status or "not solved")
        with st.expander(f"{_at(a.created_at)} · {a.exercise_id} · {verdict}"):
            st.text(a.summary)  # text: the grader's words, never read as markdown
            st.code(a.code, language="python")


def _cell_line(item: str, row: Row) -> str:
    """Return one line of a learner's exercise: solved after n attempts, or n attempts."""
    cell = row.cells[item]
    if cell.solved:
        return f"`{item}`: solved after {cell.to_solve} attempt(s)"
    return f"`{item}`: {cell.attempts} attempt(s), not solved"


def _label(row: Row) -> str:
    who = row.learner
    return f"{who.name} ({who.email})" if who.email and who.email != who.name else who.name


def _at(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _stuck(grid: Grid, view: ClassView) -> None:
    """Who made many attempts at an exercise in the last hour and has not solved it."""
    st.caption(
        f"Stuck: {STUCK_ATTEMPTS} or more attempts at one exercise in the last "
        f"{STUCK_WINDOW / 60:.0f} minutes, and no solve."
    )
    names = {r.learner.profile_id: _label(r) for r in grid.rows}
    found = [
        s
        for s in view.class_stuck(classbook.stuck_since(), STUCK_ATTEMPTS)
        if s.profile_id in names
    ]
    if not found:
        st.success("Nobody is stuck right now.", icon=":material/thumb_up:")
        return
    st.dataframe(
        pd.DataFrame.from_records(
            {
                "learner": names[s.profile_id],
                "exercise": s.exercise_id,
                "attempts": s.attempts,
                "last attempt": _at(s.last_at),
            }
            for s in found
        ),
        hide_index=True,
    )


def _gradebook(learners: list[Learner], view: ClassView, catalog: Catalog) -> None:
    """The gradebook, as grade-batch writes it: CSV (long and wide) and JSON."""
    st.markdown(
        "The class's gradebook in grade-batch's format (`backprop-ninja/gradebook/3`, "
        "docs/gradebook.md): per learner and exercise, the attempt worth the most points "
        "under the grading policy below (on a tie, the first that solved it, else the latest)."
    )
    names = classbook.gradebook_names(learners)
    grading.render(catalog, names)  # the policy, failing proofs, regraded cells (issue 35)

    who = auditlog.actor()  # files() runs outside the page's run, when a button is pressed

    def files(suffix: str) -> bytes:  # built when a button is pressed, not on every paint
        auditlog.gradebook_downloaded(who, f"gradebook.{suffix}", len(learners))
        return grading.gradebook_files(names, catalog, learners)[suffix]

    # A click that reran the dashboard would register new files and drop the old, maybe before
    # the browser's request for the old one is served: the download then fails. So no rerun.
    kinds = (("csv", "text/csv"), ("wide.csv", "text/csv"), ("json", "application/json"))
    for column, (suffix, mime) in zip(st.columns(len(kinds)), kinds, strict=True):
        with column:
            st.download_button(
                f"Download gradebook.{suffix}",
                lambda suffix=suffix: files(suffix),
                file_name=f"gradebook.{suffix}",
                mime=mime,
                icon=":material/download:",
                key=f"gradebook_{suffix}",
                on_click="ignore",  # a rerun would replace the file being fetched
            )
    lmsbook.render(names, catalog, learners)  # the book an LMS imports as it is (issue 36)
    lmsgrades.render(catalog)  # the scores sent to the LMS, and those it refused
