"""The heatmaps of a wrong gradient: three panels, shared scale, labelled rows and columns."""

from __future__ import annotations

from app.plots import heatmap_figure
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
