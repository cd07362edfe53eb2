"""Pictures drawn from the plain lists that the grader returns: a wrong gradient's heatmaps (a
Vega-Lite spec the browser draws) and the training's loss curves (matplotlib)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from itertools import chain
from types import MappingProxyType
from typing import TYPE_CHECKING

import pyarrow as pa

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from grader import Heatmap

MAX_TICKS = 12
# px: three panels, their axes and their colour bars (under each scale, not beside it) take
# about 3 x 250 px, within the page's column from a 1000 px wide window (at 260 px beside, the
# third panel ran off the column at 1400 px: issue 40)
PANEL_WIDTH, PANEL_HEIGHT = 200, 180


# The three panels' grids: one column each of the one table the browser gets.
GRIDS = ("yours", "autograd", "diff")
# Drawn on a canvas, without a description string per cell for screen readers: a wrong (32, 27)
# gradient's 2,592 cells took chromium 250 ms more drawn as SVG paths, each described (issue 39).
# The chart as a whole keeps its title and the sentences above it.
DRAWING = {"usermeta": {"embedOptions": {"renderer": "canvas"}}}


def heatmap_chart(heatmap: Heatmap, name: str) -> tuple[pa.Table, dict]:
    """Return the cells and a Vega-Lite spec of three panels, like the lecture's dlogits image:
    yours, autograd's, the difference. The browser draws them (the server sends numbers).

    Yours and autograd's share one colour scale so that they can be compared by eye; the
    difference has its own scale, centred on zero. One table holds a row per cell with the three
    values side by side: each panel colours its cells by its own column. The scales' domains are
    taken from the table by the browser, so that the spec of a gradient depends on its shape and
    its wrong rows and columns, not on its values: a new answer's heatmap then only swaps the
    data of the chart drawn already (a new spec rebuilt the chart, issue 39).
    """
    yours, autograd, diff = GRIDS
    both = [
        _panel(yours, f"your {name}", heatmap, SHARED),
        _panel(autograd, "autograd", heatmap, SHARED),
    ]
    spec = {
        "hconcat": [
            {"hconcat": both, "resolve": {"scale": {"color": "shared"}}},
            _centred(_panel(diff, "yours − autograd", heatmap, CENTRED)),
        ],
        "resolve": {"scale": {"color": "independent"}},
        "config": {
            "legend": {"orient": "bottom", "gradientLength": PANEL_WIDTH},
            "mark": {"aria": False},
        },
        **DRAWING,
    }
    return _cells(heatmap), spec


# From the smallest to the largest value of the panels that share the scale, as they are: not
# widened to round numbers (`nice`), nor to zero.
SHARED = {"scheme": "greys", "reverse": True, "nice": False, "zero": False}
CENTRED = {"scheme": "redblue", "reverse": True, "nice": False, "zero": False}
# The difference's scale spans -m to m, m its largest absolute value (1 if every value is 0):
# an unseen rectangle beneath the cells, coloured on the same scale by -m and m, widens it so.
BOUNDS = {
    "transform": [
        {
            "aggregate": [
                {"op": "min", "field": GRIDS[2], "as": "low"},
                {"op": "max", "field": GRIDS[2], "as": "high"},
            ]
        },
        {"calculate": "max(abs(datum.low), abs(datum.high)) || 1", "as": "top"},
        {"calculate": "-datum.top", "as": "bottom"},
        {"fold": ["top", "bottom"], "as": ["end", "bound"]},
    ],
    "mark": {"type": "rect", "opacity": 0},
}


def _centred(panel: dict) -> dict:
    """Return the difference's panel with its colour scale centred on zero: its cells drawn
    over the unseen bounds (BOUNDS), both coloured on the panel's one scale."""
    color = {"field": "bound", "type": "quantitative", "scale": CENTRED, "title": None}
    bounds = {**BOUNDS, "encoding": {"color": color}}
    cells = {"mark": panel["mark"], "encoding": panel["encoding"]}
    frame = {key: panel[key] for key in ("title", "width", "height")}
    return {**frame, "layer": [bounds, cells]}


# The table goes to the browser as Arrow columns: in these types a (32, 27) gradient's cells take
# 20 bytes each, the three values side by side (a row per panel's cell before: 13 bytes, 3 times).
# It is built as an Arrow table, which Streamlit sends as it is: a (32, 64) gradient's table took
# about 2 ms of the server's CPU built as a pandas DataFrame and converted, 0.4 ms so (issue 39).
COMPACT = {"row": pa.int32(), "col": pa.int32(), **dict.fromkeys(GRIDS, pa.float32())}


def _cells(heatmap: Heatmap) -> pa.Table:
    """Return the cells as columns of one table: row, col and the three grids' values. The first
    two depend only on the grid's shape and are built once per shape; the values are the
    learner's (a (32, 64) gradient's table took 7-11 ms built cell by cell, under 1 ms so)."""
    grids = (heatmap.learner, heatmap.reference, heatmap.diff)
    places = _places(tuple(len(values) for values in heatmap.learner))
    values = {
        column: pa.array(list(chain.from_iterable(grid)), COMPACT[column])
        for column, grid in zip(GRIDS, grids, strict=True)
    }
    return pa.table({**places, **values})


@lru_cache(maxsize=64)
def _places(lengths: tuple[int, ...]) -> Mapping[str, pa.Array]:
    """Return the row and col of every cell of a grid whose rows have these lengths, in order
    (kept per shape and shared by every call: neither the mapping nor Arrow's arrays can be
    changed)."""
    rows = [row for row, length in enumerate(lengths) for _ in range(length)]
    cols = [col for length in lengths for col in range(length)]
    row, col = pa.array(rows, COMPACT["row"]), pa.array(cols, COMPACT["col"])
    return MappingProxyType({"row": row, "col": col})


def _panel(grid: str, title: str, heatmap: Heatmap, scale: dict) -> dict:
    """Return one panel: the cells as rectangles coloured by one grid's column, the wrong rows
    and columns as ticks; the cell under the pointer tells its row, column and value."""
    x, y = _axis("col", "column", heatmap.cols), _axis("row", "row", heatmap.rows)
    color = {"field": grid, "type": "quantitative", "scale": scale, "title": None}
    tooltip = [_tip(x), _tip(y), {"field": grid, "type": "quantitative", "title": "value"}]
    return {
        "title": {"text": title, "fontSize": 12, "fontWeight": "normal"},
        "mark": "rect",
        "width": PANEL_WIDTH,
        "height": PANEL_HEIGHT,
        "encoding": {"x": x, "y": y, "color": color, "tooltip": tooltip},
    }


def _tip(channel: dict) -> dict:
    """Return a position channel's line in the tooltip: its field, under its title."""
    return {"field": channel["field"], "type": "ordinal", "title": channel["title"]}


def _axis(field: str, title: str, wrong: tuple[int, ...]) -> dict:
    """Return a position channel: one band per index, ticked at (a few of) the wrong ones."""
    axis = {"values": _ticks(wrong), "labelAngle": 0, "labelFontSize": 9, "titleFontSize": 10}
    return {"field": field, "type": "ordinal", "title": title, "axis": axis}


def _ticks(indices: tuple[int, ...]) -> list[int]:
    """Return at most MAX_TICKS of the wrong indices (each is ticked at its own cell)."""
    step = max(1, -(-len(indices) // MAX_TICKS))  # rounded up: never more than MAX_TICKS
    return list(indices[::step])


def loss_curves_figure(curves: dict[str, tuple[float, ...]], bucket: int) -> Figure:
    """Return the lecture's lossi plot for one or more runs: mean log10 loss per bucket of steps.

    `curves` maps a label to its points; point i covers steps i*bucket to (i+1)*bucket. The
    first curve (the learner's) is drawn solid and on top; the others dashed and lighter beneath.
    """
    # matplotlib on first use: imported with this module, it was a third of a replica's first
    # page run, on the core where the first learner's verdict waits (bench/README.md, issue 39)
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

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
