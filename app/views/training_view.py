"""Render what Exercise 4's trainer returns: the gradient check, a run's progress and results."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app.views.plots import loss_curves_figure
from app.views.results import cmp_table, show_error, show_stdout
from grader import feedback, training

if TYPE_CHECKING:
    from app.storage import TrainingRun
    from grader.training import (
        Evaluation,
        GradCheck,
        ReferenceStatus,
        TrainingReport,
        TrainingStatus,
    )

LECTURE = "The lecture reached train 2.0705 / val 2.1099 (names.txt, 200,000 steps)."
STATE_ICONS = {"finished": ":material/check_circle:", "stopped": ":material/stop_circle:"}


def show_check(check: GradCheck) -> None:
    """Show the gradient check: the verdict, then the lecture's cmp line for each parameter."""
    if check.passed:
        st.success(check.message, icon=":material/check_circle:")
    else:
        st.error(check.message, icon=":material/cancel:")
    if check.error is not None:
        show_error(check.error)
    if check.rows:
        st.dataframe(check_table(check), hide_index=True, width="stretch", height=38 + 35 * 7)
    show_stdout(check.stdout)


def check_table(check: GradCheck) -> pd.io.formats.style.Styler:
    """Return one row per parameter, led by its shape, the root cause highlighted."""
    return cmp_table(check.rows, check.root_cause, shapes=True)


def show_progress(status: TrainingStatus) -> None:
    """Show a run in progress: a bar with steps/s and time left, and the loss curve so far."""
    if status.state == "starting":
        st.progress(0.0, text="Starting the sandboxed worker…")
        return
    left = f" · {_duration(status.seconds_left)} left" if status.seconds_left else ""
    text = f"Step {status.step:,} of {status.steps:,} · {status.steps_per_s:,.0f} steps/s{left}"
    st.progress(status.fraction, text=text)
    if status.curve:
        _curve_chart(status.curve, _bucket(status.steps))


def _curve_chart(curve: tuple[float, ...], bucket: int) -> None:
    """Draw a log10 loss curve, a point per bucket of steps."""
    st.line_chart(
        live_curve(curve, bucket),
        x="step",
        y="log10 loss",
        x_label="step",
        y_label=f"log10 loss (mean of {bucket:,} steps)",
        height=220,
    )


def live_curve(curve: tuple[float, ...], bucket: int) -> pd.DataFrame:
    """Return the curve so far against the step at which each point's bucket of steps starts."""
    return pd.DataFrame({"step": [i * bucket for i in range(len(curve))], "log10 loss": curve})


def _bucket(steps: int) -> int:
    """Return how many steps each point of a run's curve averages (as TrainSettings.bucket)."""
    return max(1, steps // training.CURVE_POINTS)


def show_report(report: TrainingReport, reference: ReferenceStatus, speed: str) -> None:
    """Show how a run ended and, once it finished, the model beside autograd's."""
    if report.state in ("failed", "interrupted"):  # interrupted: its worker died (classroom)
        st.error(report.message, icon=":material/error:")
    else:
        st.success(report.message, icon=STATE_ICONS[report.state])
    if report.error is not None:
        show_error(report.error)
    for note in report.notes:
        st.info(note, icon=":material/speed:")
    if report.state == "finished" and report.evaluation is not None:
        _comparison(report, reference, speed)
    elif report.state != "finished":
        _steps_done(report)
    show_stdout(report.stdout)


def _steps_done(report: TrainingReport) -> None:
    """Show the loss of the steps a run did before it stopped or failed: its curve so far and
    the mean of its last whole bucket of steps."""
    bucket = report.settings.bucket
    if not report.curve:
        if report.steps_done:
            st.caption(
                f"It did {report.steps_done:,} steps, fewer than the {bucket:,} that a point of "
                "the loss curve averages: no loss to show."
            )
        return
    last = len(report.curve) * bucket
    st.markdown(f"**The loss over the {report.steps_done:,} steps it did**")
    st.metric(
        f"Loss over steps {last - bucket + 1:,} to {last:,}",
        f"{10 ** report.curve[-1]:.4f}",
        help="The geometric mean of the loss over the last whole bucket of steps "
        "(the curve plots its log10).",
    )
    _curve_chart(report.curve, bucket)


def _comparison(report: TrainingReport, reference: ReferenceStatus, speed: str) -> None:
    """Show losses, samples and loss curves beside the autograd reference's."""
    ref = reference.evaluation if reference.state == "done" else None
    st.markdown("**After batchnorm calibration on the whole training set**")
    st.dataframe(_losses(report, reference), hide_index=True)
    st.caption(LECTURE)
    if speed:
        st.markdown(speed)
    samples = {"your backward pass": list(report.evaluation.samples)}
    if ref is not None:
        samples["autograd"] = list(ref.samples)
    st.markdown("**20 samples** (generator seeded like the lecture's, `seed + 10`)")
    st.dataframe(pd.DataFrame(samples), hide_index=True, height=38 + 35 * 20)
    curves = {"your backward pass": report.curve}
    if reference.state == "done":
        curves["autograd"] = reference.curve
    st.pyplot(loss_curves_figure(curves, report.settings.bucket), width="stretch")


def _losses(report: TrainingReport, reference: ReferenceStatus) -> pd.DataFrame:
    """Return the train and val losses and speed of the run and of the reference."""
    rows = [_loss_row("your backward pass", report.evaluation, report.steps_per_s)]
    if reference.state == "done":
        rows.append(_loss_row("autograd", reference.evaluation, reference.steps_per_s))
    return pd.DataFrame(rows)


def _loss_row(label: str, evaluation: Evaluation, steps_per_s: float) -> dict:
    return {
        "trained by": label,
        "train loss": f"{evaluation.train_loss:.4f}",
        "val loss": f"{evaluation.val_loss:.4f}",
        "steps/s": f"{steps_per_s:,.0f}",
    }


def runs_table(runs: list[TrainingRun]) -> pd.DataFrame:
    """Return the profile's finished runs, newest first."""
    rows = [
        {
            "finished": time.strftime("%Y-%m-%d %H:%M", time.localtime(run.created_at)),
            "steps": f"{run.settings['steps']:,}",
            "batch": run.settings["batch_size"],
            "n_hidden": run.settings["n_hidden"],
            "train loss": None if run.train_loss is None else round(run.train_loss, 4),
            "val loss": None if run.val_loss is None else round(run.val_loss, 4),
            "steps/s": round(run.steps_per_s),
            "time": _duration(run.elapsed),
            "dataset": run.dataset,
        }
        for run in reversed(runs)
    ]
    return pd.DataFrame(rows)


def run_label(run: TrainingRun) -> str:
    """Name a finished run in a list: when, steps and its validation loss."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.created_at))
    val = "no evaluation" if run.val_loss is None else f"val {run.val_loss:.4f}"
    return f"{when} · {run.settings.get('steps', 0):,} steps · {val}"


def show_saved(run: TrainingRun) -> None:
    """Show a finished run again from the store: losses, its samples and its loss curve."""
    if run.train_loss is not None:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "train loss": f"{run.train_loss:.4f}",
                        "val loss": f"{run.val_loss:.4f}",
                        "steps/s": f"{run.steps_per_s:,.0f}",
                        "time": _duration(run.elapsed),
                    }
                ]
            ),
            hide_index=True,
        )
    if run.samples:
        st.dataframe(pd.DataFrame({"samples": list(run.samples)}), hide_index=True)
    if run.curve:
        bucket = _bucket(int(run.settings.get("steps", 0)))  # as the run drew it
        st.pyplot(loss_curves_figure({"your backward pass": run.curve}, bucket), width="stretch")


def _duration(seconds: float) -> str:
    """Format seconds as the grader's feedback does."""
    return feedback.duration(seconds)
