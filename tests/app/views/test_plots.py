"""The heatmaps of a wrong gradient: three titled pictures, their colour bars and scales' ends,
the wrong rows and columns ticked, alt text, and every cell's values in a table."""

from __future__ import annotations

import base64
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from app.views.plots import PANEL_HEIGHT, PANEL_WIDTH, heatmap_cells, heatmap_html
from grader import Heatmap
from grader.feedback import heatmap_panels


def test_three_panels_titled_like_the_lecture_each_the_graders_picture():
    heat = Heatmap(
        [[1.0, 2.0], [3.0, 4.0]],
        [[1.0, 2.5], [3.0, 4.0]],
        [[0.0, -0.5], [0.0, 0.0]],
        (0, 1),
        (0, 1),
    )
    page = parse(heatmap_html(heat, "dprobs"))
    assert [f["title"] for f in page] == ["your dprobs", "autograd", "yours − autograd"]
    for figure, panel in zip(page, heatmap_panels(heat), strict=True):
        assert figure["src"] == "data:image/png;base64," + base64.b64encode(panel.png).decode()


def test_each_colour_bar_is_its_scales_colours_with_its_ends_as_numbers():
    """Yours and autograd's share one grey scale; the difference's is centred on zero."""
    heat = Heatmap([[0.2, 1.0, 2.0]], [[0.3, 1.0, 1.5]], [[-0.1, 0.0, 0.5]], (0,), (0, 2))
    yours, autograd, diff = parse(heatmap_html(heat, "dW1"))
    assert yours["ends"] == autograd["ends"] == ["0.2", "2"]
    assert diff["ends"] == ["-0.5", "0.5"]
    assert yours["bar"].startswith("linear-gradient(to right, #1e1e1e,")
    assert yours["bar"].endswith("#e2e2e2)") and yours["bar"] == autograd["bar"]
    assert diff["bar"].startswith("linear-gradient(to right, #134b85,")
    assert "#f2efee" in diff["bar"] and diff["bar"].endswith("#8c0d25)")


def test_ticks_sit_at_the_wrong_columns_and_rows_themselves():
    diff = [[0.0] * 64 for _ in range(4)]
    diff[2][20] = 1.0
    heat = Heatmap(diff, diff, diff, (2,), (20,))
    for figure in parse(heatmap_html(heat, "dW2")):
        assert figure["x"] == [("20", "left: 32.031%")], "the middle of column 20 of 64"
        assert figure["y"] == [("2", "top: 62.500%")], "the middle of row 2 of 4"


def test_many_wrong_columns_get_a_few_ticks_each_at_its_own_column():
    wrong = tuple(range(1, 64, 2))
    heat = Heatmap([[0.0] * 64], [[0.0] * 64], [[0.0] * 64], (0,), wrong)
    ticks = [int(label) for label, _ in parse(heatmap_html(heat, "db1"))[0]["x"]]
    assert 1 < len(ticks) <= 12 and set(ticks) <= set(wrong)


def test_the_pictures_are_scaled_up_with_square_pixels_to_the_panels_size():
    heat = Heatmap([[0.0, 1.0]], [[0.0, 1.0]], [[0.0, 0.0]], (0,), (1,))
    html = heatmap_html(heat, "db1")
    assert "image-rendering: pixelated" in html
    assert f"width: {PANEL_WIDTH}px; height: {PANEL_HEIGHT}px" in html


def test_screen_readers_get_each_panels_shape_scale_and_wrong_places():
    heat = Heatmap([[0.2, 1.0, 2.0]], [[0.3, 1.0, 1.5]], [[-0.1, 0.0, 0.5]], (0,), (0, 2))
    yours, _, diff = parse(heatmap_html(heat, "dW1"))
    assert yours["alt"] == (
        "your dW1: 1 rows by 3 columns, on a grey scale from 0.2 (dark) to 2 (light); "
        "wrong rows 0; wrong columns 0, 2."
    )
    assert "on a red-blue scale from -0.5 (blue) to 0.5 (red)" in diff["alt"]
    assert yours["hidden"], "the ticks and bars, said in the alt text, are hidden from them"


def parse(html: str) -> list[dict]:
    """Return each panel of the heatmaps' HTML: its title, picture, alt text, ticks (label and
    place), colour bar and its ends."""
    reader = _Panels()
    reader.feed(html)
    return reader.panels


class _Panels(HTMLParser):
    """Read the panels of heatmap_html's output."""

    def __init__(self):
        super().__init__()
        self.panels: list[dict] = []
        self.inside: list[str] = []  # the classes of the open divs and the open tag
        self.style = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "figure":
            self.panels.append({"x": [], "y": [], "ends": [], "hidden": 0})
        elif tag == "img":
            self.panels[-1].update(src=attrs["src"], alt=attrs["alt"])
        elif tag == "div" and attrs.get("class") == "bar":
            self.panels[-1]["bar"] = attrs["style"].removeprefix("background: ")
        if tag == "div" and self.panels:
            self.panels[-1]["hidden"] += attrs.get("aria-hidden") == "true"
        if tag != "img":  # a void element: no end tag comes
            self.inside.append(attrs.get("class") or tag)
        self.style = attrs.get("style", "")

    def handle_endtag(self, tag):
        self.inside.pop()

    def handle_data(self, data):
        if not self.panels or not self.inside:
            return
        where = self.inside[-1]
        if where == "figcaption":
            self.panels[-1]["title"] = data
        elif where == "span" and self.inside[-2] in ("x", "y"):
            self.panels[-1][self.inside[-2]].append((data, self.style))
        elif where == "span" and self.inside[-2] == "ends":
            self.panels[-1]["ends"].append(data)


def test_the_table_of_values_holds_every_cell_in_compact_types():
    """Every cell's row, column and three values, readable one by one (under the pictures).
    Issue 39: the cells are an Arrow table that Streamlit sends as it is (no pandas frame
    built and converted); the browser gets the same columns, types and values, cell by cell."""
    import pyarrow as pa
    from streamlit import dataframe_util

    learner = [[0.1, -2.0, 3.5], [1e-3, 0.0, -7.25]]
    reference = [[0.1, -2.5, 3.5], [1e-3, 0.5, -7.25]]
    diff = [
        [a - b for a, b in zip(x, y, strict=True)] for x, y in zip(learner, reference, strict=True)
    ]
    cells = heatmap_cells(Heatmap(learner, reference, diff, (0, 1), (1,)))
    sent = pa.ipc.open_stream(dataframe_util.convert_anything_to_arrow_bytes(cells)).read_all()
    assert sent.schema.names == ["row", "col", "yours", "autograd", "diff"]
    assert [str(t) for t in sent.schema.types] == ["int32", "int32", "float", "float", "float"]
    assert sent.column("row").to_pylist() == [0, 0, 0, 1, 1, 1]
    assert sent.column("col").to_pylist() == [0, 1, 2, 0, 1, 2]
    for column, grid in zip(("yours", "autograd", "diff"), (learner, reference, diff), strict=True):
        flat = [v for row in grid for v in row]
        assert sent.column(column).to_pylist() == pa.array(flat, pa.float32()).to_pylist()
        assert sent.column(column).to_pylist() == pytest.approx(flat, rel=1e-6)


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


def test_the_pages_leave_matplotlib_out_until_a_loss_curve_is_drawn():
    # Imported with the pages, matplotlib was a third of a replica's first page run, on the
    # core where the first learner's verdict waits (bench/README.md, issue 39).
    code = (
        "import sys, app.nav, app.views, app.screens.exercise, app.screens.training\n"
        "assert 'matplotlib' not in sys.modules, 'matplotlib was imported with the pages'\n"
        "from app.views.plots import loss_curves_figure\n"
        "loss_curves_figure({'you': (1.0, 0.5)}, 100)\n"
        "assert 'matplotlib' in sys.modules\n"
    )
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
