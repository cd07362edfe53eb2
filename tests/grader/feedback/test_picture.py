"""A wrong gradient's heatmaps as pictures: a pixel per cell, coloured on the lecture's scales
(yours and autograd's one grey scale, the difference's red-blue scale centred on zero)."""

from __future__ import annotations

import io
import math

import pytest
from PIL import Image

from grader import Heatmap
from grader.feedback import heatmap_panels

# Vega's palettes' ends and middles, reversed as the chart drew them (tests/e2e pins the same)
DARK, MIDDLE_GREY, LIGHT = (30, 30, 30, 255), (136, 136, 136, 255), (226, 226, 226, 255)
BLUE, CENTRE, RED = (19, 75, 133, 255), (242, 239, 238, 255), (140, 13, 37, 255)


def heat(yours: list[list[float]], autograd: list[list[float]]) -> Heatmap:
    """Return the heatmap of two grids, their difference computed here."""
    diff = [
        [a - b for a, b in zip(x, y, strict=True)] for x, y in zip(yours, autograd, strict=True)
    ]
    return Heatmap(yours, autograd, diff, (0,), (0,))


def pixels(png: bytes) -> list[list[tuple[int, ...]]]:
    """Return a PNG's pixels as RGBA, row by row."""
    image = Image.open(io.BytesIO(png)).convert("RGBA")
    return [[image.getpixel((x, y)) for x in range(image.width)] for y in range(image.height)]


def test_three_panels_a_pixel_per_cell_row_zero_on_top():
    panels = heatmap_panels(heat([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0] * 3, [1.0] * 3]))
    assert [p.grid for p in panels] == ["yours", "autograd", "diff"]
    for panel in panels:
        image = Image.open(io.BytesIO(panel.png))
        assert image.format == "PNG" and image.size == (3, 2), "columns wide, rows high"
    yours = pixels(panels[0].png)
    assert yours[1][2] == LIGHT and yours[0][0] == DARK, "6.0 (row 1) lightest, 1.0 darkest"


def test_yours_and_autograds_share_one_grey_scale_from_the_smallest_to_the_largest():
    panels = heatmap_panels(heat([[0.2, 1.0, 2.0]], [[0.3, 1.0, 1.5]]))
    yours, autograd, _ = panels
    assert (yours.low, yours.high) == (autograd.low, autograd.high) == (0.2, 2.0)
    assert yours.stops == autograd.stops and yours.stops[0] == "1e1e1e"
    mine, theirs = pixels(yours.png)[0], pixels(autograd.png)[0]
    assert mine[0] == DARK and mine[2] == LIGHT, "yours hold both ends"
    assert mine[1] == theirs[1], "1.0 coloured once"
    assert theirs[2] not in (LIGHT, DARK), "1.5 is neither end"


def test_the_difference_is_on_its_own_scale_centred_on_zero():
    _, _, diff = heatmap_panels(heat([[0.2, 1.0, 2.0]], [[0.3, 1.0, 1.5]]))  # -0.1, 0, +0.5
    assert (diff.low, diff.high) == (-0.5, 0.5), "-m to m, m the largest absolute value"
    assert diff.stops[0] == "134b85" and diff.stops[-1] == "8c0d25"
    cells = pixels(diff.png)[0]
    assert cells[1] == CENTRE and cells[2] == RED
    _, _, other = heatmap_panels(heat([[0.3, 1.0, 1.6]], [[0.2, 1.0, 2.0]]))  # +0.1, 0, -0.4
    assert other.low == pytest.approx(-0.4) and other.high == pytest.approx(0.4)
    assert pixels(other.png)[0][1] == CENTRE and pixels(other.png)[0][2] == BLUE


def test_a_value_between_the_ends_takes_the_palettes_colour_there():
    yours, _, _ = heatmap_panels(heat([[0.0, 5.0, 10.0]], [[0.0, 5.0, 10.0]]))
    assert pixels(yours.png)[0][1] == MIDDLE_GREY, "half way: the greys' middle stop"


def test_all_zero_differences_still_draw_on_a_scale_from_minus_one_to_one():
    yours, _, diff = heatmap_panels(heat([[2.0, 2.0]], [[2.0, 2.0]]))
    assert (diff.low, diff.high) == (-1.0, 1.0)
    assert pixels(diff.png)[0] == [CENTRE, CENTRE]
    assert yours.low == yours.high == 2.0 and pixels(yours.png)[0] == [MIDDLE_GREY] * 2


def test_a_value_that_is_not_a_number_is_left_out_of_the_scale_and_transparent():
    yours, _, diff = heatmap_panels(heat([[math.nan, 1.0, math.inf]], [[0.0, 3.0, 3.0]]))
    assert (yours.low, yours.high) == (0.0, 3.0)
    cells = pixels(yours.png)[0]
    assert cells[0][3] == 0 and cells[2][3] == 0 and cells[1][3] == 255
    assert (diff.low, diff.high) == (-2.0, 2.0), "nan and inf differences left out"
