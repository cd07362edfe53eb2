"""Pictures of the plain lists that the grader returns: a wrong gradient's heatmaps (three
small PNGs that the grader draws, laid out here as HTML) and the training's loss curves
(matplotlib)."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from functools import lru_cache
from html import escape
from itertools import chain
from types import MappingProxyType
from typing import TYPE_CHECKING

import pyarrow as pa

from grader.feedback import heatmap_panels

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from grader import Heatmap
    from grader.feedback import Panel

MAX_TICKS = 12
# px: three panels, their axes and their colour bars (under each picture) take about 3 x 250 px,
# within the page's column from a 1000 px wide window (at 260 px, the third panel ran off the
# column at 1400 px: issue 40)
PANEL_WIDTH, PANEL_HEIGHT = 200, 180

# The three panels' grids: one column each of the table of values.
GRIDS = ("yours", "autograd", "diff")
# Each panel is a PNG with a pixel per cell, scaled up with its pixels kept square-edged: a
# Vega-Lite chart of the same cells took chromium 100 to 130 ms of a wrong answer's paint, the
# pictures about as much as a line of text (issue 39, bench/README.md). The values, cell by
# cell, are the table under them (heatmap_cells).
STYLE = f"""<style>
.bn-heat {{display: flex; flex-wrap: wrap; gap: 8px 28px; font-size: 11px; line-height: 1.2}}
.bn-heat figure {{margin: 0; width: {PANEL_WIDTH + 30}px}}
.bn-heat figcaption {{font-size: 12px; text-align: center; margin: 0 0 2px 30px}}
.bn-heat .plot {{position: relative; margin-left: 30px; width: {PANEL_WIDTH}px}}
.bn-heat img {{display: block; width: {PANEL_WIDTH}px; height: {PANEL_HEIGHT}px;
  image-rendering: pixelated; image-rendering: crisp-edges}}
.bn-heat .x {{position: relative; height: 14px}}
.bn-heat .y {{position: absolute; left: -30px; top: 0; width: 26px; height: {PANEL_HEIGHT}px}}
.bn-heat .x span {{position: absolute; top: 1px; transform: translateX(-50%)}}
.bn-heat .y span {{position: absolute; right: 0; transform: translateY(-50%)}}
.bn-heat-key {{font-size: 12px; color: #555; margin: 4px 0 0 0}}
.bn-heat .bar {{height: 9px; margin-top: 4px}}
.bn-heat .ends {{display: flex; justify-content: space-between}}
</style>"""
TITLES = {"yours": "your {name}", "autograd": "autograd", "diff": "yours − autograd"}
SCALES = {"yours": "grey", "autograd": "grey", "diff": "red-blue"}
LOW_HIGH = {"grey": ("dark", "light"), "red-blue": ("blue", "red")}
KEY = "Numbers at the left and below: the wrong rows and columns. Under each panel: its scale."


def heatmap_html(heatmap: Heatmap, name: str) -> str:
    """Return the HTML of three panels, like the lecture's dlogits image: yours, autograd's and
    the difference, each titled, its wrong rows and columns ticked and its colour bar beneath
    with its scale's ends. The grader draws the pictures and finds the ends (grader.feedback's
    heatmap_panels): yours and autograd's share one grey scale, the difference has its own,
    centred on zero. Each picture's alternative text says the same for screen readers."""
    figures = "".join(_figure(panel, heatmap, name) for panel in heatmap_panels(heatmap))
    return f'{STYLE}<div class="bn-heat">{figures}</div><p class="bn-heat-key">{KEY}</p>'


def _figure(panel: Panel, heatmap: Heatmap, name: str) -> str:
    """Return one panel: its title, picture, ticks and colour bar."""
    title = TITLES[panel.grid].format(name=name)
    shape = (len(heatmap.learner), len(heatmap.learner[0]) if heatmap.learner else 0)
    src = "data:image/png;base64," + base64.b64encode(panel.png).decode("ascii")
    bar = f"linear-gradient(to right, {', '.join('#' + stop for stop in panel.stops)})"
    return (
        f"<figure><figcaption>{escape(title)}</figcaption><div class='plot'>"
        f"<div class='y' aria-hidden='true'>{_ticks(heatmap.rows, shape[0], 'top')}</div>"
        f"<img src='{src}' alt='{escape(_described(panel, title, heatmap, shape), quote=True)}'>"
        f"<div class='x' aria-hidden='true'>{_ticks(heatmap.cols, shape[1], 'left')}</div>"
        f"<div class='bar' style='background: {bar}' aria-hidden='true'></div>"
        f"<div class='ends' aria-hidden='true'><span>{_number(panel.low)}</span>"
        f"<span>{_number(panel.high)}</span></div></div></figure>"
    )


def _ticks(wrong: tuple[int, ...], count: int, side: str) -> str:
    """Return the labels of (a few of) the wrong indices, each at its cell's middle."""
    return "".join(
        f"<span style='{side}: {100 * (index + 0.5) / max(count, 1):.3f}%'>{index}</span>"
        for index in _few(wrong)
    )


def _few(indices: tuple[int, ...]) -> list[int]:
    """Return at most MAX_TICKS of the wrong indices (each is ticked at its own cell)."""
    step = max(1, -(-len(indices) // MAX_TICKS))  # rounded up: never more than MAX_TICKS
    return list(indices[::step])


def _described(panel: Panel, title: str, heatmap: Heatmap, shape: tuple[int, int]) -> str:
    """Return a panel's alternative text: what it shows, its scale and where it is wrong."""
    scale = SCALES[panel.grid]
    low, high = LOW_HIGH[scale]
    rows, cols = (", ".join(map(str, wrong)) or "none" for wrong in (heatmap.rows, heatmap.cols))
    return (
        f"{title}: {shape[0]} rows by {shape[1]} columns, on a {scale} scale from "
        f"{_number(panel.low)} ({low}) to {_number(panel.high)} ({high}); "
        f"wrong rows {rows}; wrong columns {cols}."
    )


def _number(value: float) -> str:
    """Return a scale's end as a short number."""
    return f"{value:.3g}"


# The table of values goes to the browser as Arrow columns: in these types a (32, 27) gradient's
# cells take 20 bytes each, the three values side by side. It is built as an Arrow table, which
# Streamlit sends as it is: a (32, 64) gradient's table took about 2 ms of the server's CPU built
# as a pandas DataFrame and converted, 0.4 ms so (issue 39).
COMPACT = {"row": pa.int32(), "col": pa.int32(), **dict.fromkeys(GRIDS, pa.float32())}


def heatmap_cells(heatmap: Heatmap) -> pa.Table:
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
