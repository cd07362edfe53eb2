"""Progress: per exercise, suggested practice, the history of attempts, training runs; reset."""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app import links, services, session

if TYPE_CHECKING:
    from app.storage import Attempt, ExerciseProgress, Profile
    from grader import Catalog
    from grader.course import Course

CONFIRM_KEY = "progress:confirm_reset"
HISTORY_ROWS = 50


def render() -> None:
    """Render the progress page for the current profile."""
    profile = session.profile()
    st.title("Progress")
    st.caption(f"Profile: **{profile.name}**")
    table = progress_table(services.catalog(), services.store().work.progress(profile))
    solved = int((table["status"] == "solved").sum())
    left, middle, right = st.columns(3)
    left.metric("Solved", f"{solved} of {len(table)}")
    middle.metric("Attempts", int(table["attempts"].sum()))
    right.metric("Time spent", _duration(float(table["minutes"].sum()) * 60))
    st.dataframe(table, hide_index=True, width="stretch", height=38 + 35 * len(table))
    st.download_button(
        "Download as CSV",
        csv_text(table).encode("utf-8"),
        file_name=f"backprop-ninja-{profile.name}.csv",
        mime="text/csv",
        icon=":material/download:",
        key="progress:csv",
    )
    _suggestion(profile)
    _history(profile)
    _training_runs(profile)
    _reset(profile)


def suggestion(
    attempts: list[Attempt], statuses: dict[str, str], known: set[str], course: Course
) -> tuple[str, str] | None:
    """Return (exercise, why) to practise the kind of mistake the learner made most, at least
    twice: the course declares, per misconception id, where to practise (course.toml)."""
    kinds = Counter(
        practice
        for a in attempts
        if not a.solved and (practice := course.practice_for(a.facts.misconception))
    )
    for practice, count in kinds.most_common():
        if count < 2:
            break
        open_ones = [e for e in practice.exercises if e in known and statuses.get(e) != "solved"]
        if open_ones:
            return open_ones[0], f"You made {count} mistakes about {practice.rule}."
    return None


def _suggestion(profile: Profile) -> None:
    """Suggest an exercise from the learner's recorded mistakes."""
    store, catalog = services.store(), services.catalog()
    known = {e.id for e in catalog.exercises}
    found = suggestion(
        store.work.attempts(profile), store.work.statuses(profile), known, catalog.course
    )
    if found is None:
        return
    exercise_id, why = found
    st.header("Suggested practice")
    st.markdown(why)
    st.page_link(links.exercise_page(exercise_id), label=f"Practise it on {exercise_id}")


def history_table(attempts: list[Attempt], first_pass: str = "") -> pd.DataFrame:
    """Return the latest attempts, newest first: when, which (a link), verdict, feedback.

    `first_pass` is the scenario whose whole pass lives at ./whole_pass (the others at
    ./whole_pass_<slug>).
    """
    latest = sorted(attempts, key=lambda a: a.created_at, reverse=True)[:HISTORY_ROWS]
    return pd.DataFrame(
        [
            {
                "when": time.strftime("%Y-%m-%d %H:%M", time.localtime(a.created_at)),
                "exercise": f"./{_url(a.exercise_id, first_pass)}",
                "verdict": "solved" if a.solved else "not yet",
                "feedback": a.summary,
            }
            for a in latest
        ],
        columns=["when", "exercise", "verdict", "feedback"],
    )


def _url(key: str, first_pass: str) -> str:
    """Return the url path of an exercise or of a whole pass (recorded as whole_pass:<slug>)."""
    if not key.startswith(f"{links.WHOLE_PASS}:"):
        return key
    slug = key.split(":", 1)[1]
    return links.WHOLE_PASS if slug == first_pass else f"{links.WHOLE_PASS}_{slug}"


def _history(profile: Profile) -> None:
    """Show the latest attempts with links back to their exercises."""
    attempts = services.store().work.attempts(profile)
    if not attempts:
        return
    st.header("History")
    first = next((s.slug for s in services.catalog().scenarios if s.whole_pass), "")
    st.dataframe(
        history_table(attempts, first),
        hide_index=True,
        width="stretch",
        column_config={
            "exercise": st.column_config.LinkColumn("exercise", display_text=r"\./(.*)"),
            "feedback": st.column_config.TextColumn("feedback", width="large"),
        },
    )


def _training_runs(profile: Profile) -> None:
    """List the finished training runs, newest first, with a link to open them again."""
    runs = services.store().runs.training_runs(profile)
    if not runs:
        return
    st.header("Training runs")
    table = pd.DataFrame(
        [
            {
                "when": time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at)),
                "steps": r.settings.get("steps"),
                "train loss": r.train_loss,
                "val loss": r.val_loss,
                "steps/s": round(r.steps_per_s),
                "dataset": r.dataset,
            }
            for r in sorted(runs, key=lambda r: r.created_at, reverse=True)
        ]
    )
    st.dataframe(table, hide_index=True, width="stretch")
    if services.training_available(services.catalog()):  # a course may have no training page
        st.page_link(links.page(links.TRAINING), label="Open the training page to see their curves")


def progress_table(catalog: Catalog, progress: list[ExerciseProgress]) -> pd.DataFrame:
    """Return one row per exercise (and whole pass), in teaching order."""
    by_id = {p.exercise_id: p for p in progress}
    rows = [(e.id, e.title) for e in catalog.exercises]
    rows += [
        (links.whole_pass_id(s.slug), f"Whole pass: {s.title}")
        for s in catalog.scenarios
        if s.whole_pass
    ]
    return pd.DataFrame(
        [_row(key, title, by_id.get(key)) for key, title in rows],
        columns=["exercise", "title", "status", "attempts", "minutes", "hints", "revealed"],
    )


def csv_text(table: pd.DataFrame) -> str:
    """Return the progress table as CSV text."""
    return table.to_csv(index=False)


def _row(key: str, title: str, p: ExerciseProgress | None) -> dict:
    """Return one exercise's figures."""
    if p is None:
        return {
            "exercise": key,
            "title": title,
            "status": "not started",
            "attempts": 0,
            "minutes": 0.0,
            "hints": 0,
            "revealed": False,
        }
    status = "solved" if p.solved else "attempted" if p.attempts else "not started"
    return {
        "exercise": key,
        "title": title,
        "status": status,
        "attempts": p.attempts,
        "minutes": round(p.time_spent / 60, 1),
        "hints": p.hints,
        "revealed": p.revealed,
    }


def _duration(seconds: float) -> str:
    """Format seconds as "1 h 05 min", "12 min" or "40 s"."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _reset(profile: Profile) -> None:
    """Delete the profile's progress, after an explicit confirmation."""
    if not st.session_state.get(CONFIRM_KEY):
        if st.button("Reset progress…", icon=":material/delete:", key="progress:reset"):
            st.session_state[CONFIRM_KEY] = True
            st.rerun()
        return
    st.warning(
        f"Delete every attempt, draft, hint and reveal of **{profile.name}**? "
        "This cannot be undone."
    )
    yes, no = st.columns(2)
    if yes.button("Yes, delete my progress", type="primary", key="progress:reset_yes"):
        services.store().work.reset(profile)
        st.session_state[CONFIRM_KEY] = False
        st.toast("Progress deleted.")
        st.rerun()
    if no.button("Cancel", key="progress:reset_no"):
        st.session_state[CONFIRM_KEY] = False
        st.rerun()
