"""Pictures of a wrong gradient, drawn from the plain lists that the grader returns."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

MAX_TICKS = 12


def heatmap_figure(heatmap, name: str) -> Figure:
    """Return three panels, like the lecture's dlogits image: yours, autograd's, the difference.

    Yours and autograd's share one colour scale so that they can be compared by eye; the
    difference has its own scale, centred on zero.
    """
    panels = [
        (heatmap.learner, f"your {name}"),
        (heatmap.reference, "autograd"),
        (heatmap.diff, "yours − autograd"),
    ]
    figure = Figure(figsize=(11, 3.4), layout="constrained")
    axes = figure.subplots(1, 3)
    low, high = _range([heatmap.learner, heatmap.reference])
    for ax, (values, title) in zip(axes[:2], panels[:2], strict=True):
        image = ax.imshow(values, cmap="gray", vmin=low, vmax=high, aspect="auto")
        _label(ax, title, heatmap)
    figure.colorbar(image, ax=axes[:2], shrink=0.9)
    spread = max(abs(v) for row in heatmap.diff for v in row) or 1.0
    image = axes[2].imshow(heatmap.diff, cmap="RdBu_r", vmin=-spread, vmax=spread, aspect="auto")
    _label(axes[2], panels[2][1], heatmap)
    figure.colorbar(image, ax=axes[2], shrink=0.9)
    return figure


def _range(grids: list[list]) -> tuple[float, float]:
    """Return the smallest and largest value across grids."""
    values = [v for grid in grids for row in grid for v in row]
    return min(values), max(values)


def _label(ax, title: str, heatmap) -> None:
    """Title a panel and mark the rows and columns that differ, at their own cells."""
    ax.set_title(title, fontsize=10)
    ax.set_yticks(*_ticks(heatmap.rows), fontsize=7)
    ax.set_xticks(*_ticks(heatmap.cols), fontsize=7)
    ax.set_xlabel("column", fontsize=8)
    ax.set_ylabel("row", fontsize=8)


def _ticks(indices: tuple[int, ...]) -> tuple[list[int], list[str]]:
    """Return at most MAX_TICKS of the wrong indices, each placed at its own cell."""
    step = max(1, -(-len(indices) // MAX_TICKS))  # rounded up: never more than MAX_TICKS
    positions = list(indices[::step])
    return positions, [str(i) for i in positions]


def loss_curves_figure(curves: dict[str, tuple[float, ...]], bucket: int) -> Figure:
    """Return the lecture's lossi plot for one or more runs: mean log10 loss per bucket of steps.

    `curves` maps a label to its points; point i covers steps i*bucket to (i+1)*bucket. The
    first curve (the learner's) is drawn solid and on top; the others dashed and lighter beneath.
    """
    figure = Figure(figsize=(9, 3.4), layout="constrained")
    ax = figure.subplots()
    for rank, (label, points) in enumerate(curves.items()):
        if points:
            ax.plot(range(len(points)), points, label=label, **_curve_style(rank))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x * bucket:,.0f}"))
    ax.set_xlabel("step", fontsize=9)
    ax.set_ylabel(f"log10 loss (mean of {bucket:,} steps)", fontsize=9)
    ax.grid(alpha=0.3)
    if len(curves) > 1:
        ax.legend(fontsize=9)
    return figure


def _curve_style(rank: int) -> dict:
    """Return how to draw the rank-th curve: the first solid on top, the rest dashed beneath."""
    if rank == 0:
        return {"linewidth": 1.4, "zorder": 3}
    return {"linewidth": 1.0, "linestyle": "--", "alpha": 0.6, "zorder": 2}
