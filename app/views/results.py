"""Render what the grader returns: one exercise's Result, or a whole pass's PassResult."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app.views.plots import heatmap_cells, heatmap_html
from grader import feedback

if TYPE_CHECKING:
    from grader import Check, Cmp, GradRow, Heatmap, LearnerError, PassResult, Result

MARKS = {
    "pass": ":green[✓]",
    "fail": ":red[✗]",
    "skipped": ":gray[·]",
    "inconclusive": ":orange[~]",
}
SOLVED_ICON, FAILED_ICON = ":material/check_circle:", ":material/cancel:"
SHAPE_ICON = ":material/straighten:"  # every value right, a shape to fix
ROOT_STYLE = "background-color: rgba(255, 75, 75, 0.18); font-weight: bold"


def show_result(result: Result) -> None:
    """Show the verdict, every check, the cmp line, the exception and the heatmaps."""
    if result.busy:
        show_busy(result.summary())
        return
    if result.solved:
        st.success(f"**Solved.** {result.summary()}", icon=SOLVED_ICON)
    else:
        st.error(f"**Not yet.** {result.summary()}", icon=FAILED_ICON)
    if result.error is not None:
        show_error(result.error)
    show_checks(result.checks, said=result.summary())
    if result.cmp is not None:
        st.code(cmp_text(result.cmp), language=None)
    if result.heatmap is not None and not result.solved:
        where = " (with random upstream gradients)" if result.heatmap.case == "random" else ""
        st.markdown(f"**Where the values differ**{where}")
        show_heatmap(result.heatmap, result.answer, result.exercise)
    show_stdout(result.stdout)
    st.caption(f"Graded in {result.elapsed * 1000:.0f} ms.")


def show_language(language) -> None:
    """Show the exercise language's names, family by family: "the list" a refusal points to."""
    with st.expander("The exercise language: what code may write after a dot"):
        for family, names in language.by_family().items():
            st.markdown(f"**{family}**: " + ", ".join(f"`{n}`" for n in names))


def show_heatmap(heatmap: Heatmap, answer: str, exercise: str = "") -> None:
    """Show the heatmaps, a small picture per panel, and under them, folded, every cell's row,
    column and values: drawn only once unfolded (in a folded expander the table was still
    built in the browser with every wrong answer's paint, issue 39)."""
    st.html(heatmap_html(heatmap, answer))
    # keyed by exercise too: a notebook's report may show two exercises' wrong dlogits
    values = st.expander(VALUES, key=f"heatmap-values:{exercise}:{answer}", on_change="rerun")
    if values.open:
        values.dataframe(heatmap_cells(heatmap), hide_index=True, height=250)


VALUES = "The values, cell by cell"


def show_busy(message: str) -> None:
    """Say that the submission was not graded because the grader is busy (not a verdict)."""
    st.warning(f"{message} Your code is kept in the editor.", icon=":material/hourglass_top:")


SAID_ABOVE = "as the verdict above says."


def show_checks(checks: tuple[Check, ...], said: str = "") -> None:
    """List the checks, cheapest first, each with its mark, message and hint; a check whose
    message the verdict above already `said` is not said twice."""
    lines = []
    for check in checks:
        message = SAID_ABOVE if said and check.message == said else check.message
        lines.append(f"- {MARKS.get(check.status, '?')} **{check.title}:** {message}")
        if check.hint:
            lines.append(f"  \n  _{check.hint}_")
    st.markdown("\n".join(lines))


def show_error(error: LearnerError) -> None:
    """Show the learner's exception: their own lines only, as the grader reports them."""
    text = error.traceback.rstrip() or f"{error.type}: {error.message}"
    st.code(text, language="python")


def show_stdout(stdout: str) -> None:
    """Show what the learner's code printed, folded away."""
    if stdout:
        with st.expander("What your code printed"):
            st.code(stdout, language=None)


def cmp_text(cmp: Cmp) -> str:
    """Return the lecture's cmp line."""
    return feedback.cmp_line(cmp)


def show_pass(result: PassResult) -> None:
    """Show a whole pass: the verdict, the cmp table with the root cause highlighted."""
    show_pass_verdict(result)
    show_pass_table(result)


def show_pass_verdict(result: PassResult) -> None:
    """Show a whole pass's verdict (and the learner's exception); a page may add what to do
    about it before the table (the whole pass's page: the first wrong row's diagnosis)."""
    if result.busy:
        show_busy(result.message)
    elif result.solved:
        st.success(result.message, icon=SOLVED_ICON)
    elif result.shape_slips:  # every value right: a shape to fix, not a wrong gradient
        st.warning(result.message, icon=SHAPE_ICON)
    else:
        st.error(result.message, icon=FAILED_ICON)
    if result.error is not None and not result.busy:
        show_error(result.error)


def show_pass_table(result: PassResult) -> None:
    """Show a whole pass's cmp table (the root cause highlighted), the feedback of every row
    that did not pass (folded: the table has the numbers), the notes and what it printed."""
    if result.busy:
        return
    if result.rows:
        st.dataframe(
            pass_table(result),
            hide_index=True,
            width="stretch",
            height=38 + 35 * len(result.rows),
            column_config={"feedback": st.column_config.TextColumn(width="large")},
        )
        show_pass_feedback(result.rows)
    for note in (result.sizes_message, *result.notes):
        if note and note != result.message:
            st.info(note)
    show_stdout(result.stdout)
    st.caption(f"Graded in {result.elapsed * 1000:.0f} ms.")


def show_pass_feedback(rows: tuple[GradRow, ...]) -> None:
    """Show, folded, the feedback of every gradient that did not pass in full, wrapped (a
    table cuts it)."""
    lines = [f"- **{row.name}:** {row.message}" for row in rows if row.status != "pass"]
    if lines:
        with st.expander(f"Feedback in full ({len(lines)} of {len(rows)} gradients)"):
            st.markdown("\n".join(lines))


def pass_table(result: PassResult) -> pd.io.formats.style.Styler:
    """Return the whole pass's cmp table, the first wrong gradient (the root) highlighted."""
    return cmp_table(result.rows, result.root_cause)


def cmp_table(
    rows: tuple[GradRow, ...], root: str | None, shapes: bool = False
) -> pd.io.formats.style.Styler:
    """Return the lecture's cmp table, one row per gradient (led by its shape, if asked), the
    row of `root` highlighted."""
    frame = pd.DataFrame([_cmp_row(row, shapes) for row in rows])

    def highlight(row: pd.Series) -> list[str]:
        return [ROOT_STYLE if row["gradient"] == root else ""] * len(row)

    return frame.style.apply(highlight, axis=1).format({"maxdiff": "{:.1e}"}, na_rep="")


def _cmp_row(row: GradRow, shapes: bool) -> dict:
    """Return one gradient's row: (shape,) gradient, mark, exact, approximate, maxdiff, feedback."""
    cmp = row.cmp
    return {
        **({"shape": str(row.shape)} if shapes else {}),
        "gradient": row.name,
        "": "✓" if row.status == "pass" else "✗",
        "exact": cmp.exact if cmp else None,
        "approximate": cmp.approx if cmp else None,
        "maxdiff": cmp.maxdiff if cmp else None,
        "feedback": row.message.replace("`", ""),
    }
