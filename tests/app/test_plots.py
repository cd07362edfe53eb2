"""The heatmaps of a wrong gradient: three panels, shared scale, labelled rows and columns."""

from __future__ import annotations

from app.views.plots import heatmap_figure
from grader import Heatmap


def test_three_panels_titled_like_the_lecture():
    heat = Heatmap(
        [[1.0, 2.0], [3.0, 4.0]],
        [[1.0, 2.5], [3.0, 4.0]],
        [[0.0, -0.5], [0.0, 0.0]],
        (0, 1),
        (0, 1),
    )
    figure = heatmap_figure(heat, "dprobs")
    titles = [ax.get_title() for ax in figure.axes if ax.get_title()]
    assert titles == ["your dprobs", "autograd", "yours − autograd"]
    learner, reference = figure.axes[0].images[0], figure.axes[1].images[0]
    assert learner.get_clim() == reference.get_clim() == (1.0, 4.0)
    assert figure.axes[2].images[0].get_clim() == (-0.5, 0.5)


def test_a_one_row_gradient_and_many_columns_get_few_ticks():
    heat = Heatmap([[0.0] * 64], [[0.0] * 64], [[0.0] * 64], (0,), tuple(range(64)))
    figure = heatmap_figure(heat, "db1")
    assert len(figure.axes[0].get_xticks()) <= 13
    assert figure.axes[2].images[0].get_clim() == (-1.0, 1.0), "an all-zero diff still draws"


def test_ticks_sit_at_the_wrong_columns_and_rows_themselves():
    diff = [[0.0] * 64 for _ in range(4)]
    diff[2][20] = 1.0
    heat = Heatmap(diff, diff, diff, (2,), (20,))
    for ax in heat_axes(heatmap_figure(heat, "dW2")):
        assert list(ax.get_xticks()) == [20]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["20"]
        assert list(ax.get_yticks()) == [2]


def test_many_wrong_columns_get_a_few_ticks_each_at_its_own_column():
    wrong = tuple(range(1, 64, 2))
    heat = Heatmap([[0.0] * 64], [[0.0] * 64], [[0.0] * 64], (0,), wrong)
    ax = heatmap_figure(heat, "db1").axes[0]
    ticks = [int(t) for t in ax.get_xticks()]
    assert 1 < len(ticks) <= 12 and set(ticks) <= set(wrong)
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(t) for t in ticks]


def heat_axes(figure):
    """Return the three image panels of a heatmap figure (not the colour bars)."""
    return [ax for ax in figure.axes if ax.images and ax.get_title()]


def test_loss_curves_share_one_plot_with_steps_on_the_x_axis():
    from app.views.plots import loss_curves_figure

    figure = loss_curves_figure(
        {"your backward pass": (0.5, 0.4, 0.3), "autograd": (0.5, 0.41)}, 1000
    )
    ax = figure.axes[0]
    assert [line.get_label() for line in ax.get_lines()] == ["your backward pass", "autograd"]
    assert list(ax.get_lines()[0].get_ydata()) == [0.5, 0.4, 0.3]
    assert ax.xaxis.get_major_formatter()(2, 0) == "2,000"
    assert "mean of 1,000 steps" in ax.get_ylabel() and ax.get_legend() is not None


def test_the_learners_curve_is_drawn_on_top_and_autograds_dashed_beneath():
    from app.views.plots import loss_curves_figure

    ax = loss_curves_figure({"your backward pass": (0.5, 0.4), "autograd": (0.5, 0.4)}, 1).axes[0]
    yours, autograd = ax.get_lines()
    assert yours.get_zorder() > autograd.get_zorder()
    assert yours.get_linestyle() == "-" and autograd.get_linestyle() == "--"
    assert autograd.get_alpha() < 1 and ax.get_legend() is not None


def test_one_curve_needs_no_legend_and_an_empty_one_is_skipped():
    from app.views.plots import loss_curves_figure

    ax = loss_curves_figure({"yours": (0.5,), "autograd": ()}, 1).axes[0]
    assert len(ax.get_lines()) == 1
