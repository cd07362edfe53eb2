"""In a real browser: the heatmaps' colour scales, which chromium takes from the numbers
(app/views/plots.py), colour known cells as they should. Pixels are read from a screenshot of
each chart's canvas, at the centres of its cells (tests/e2e/heatmap_page.py draws the charts)."""

from __future__ import annotations

import io
import time
from collections import Counter

import pytest

from app.views.plots import PANEL_HEIGHT, PANEL_WIDTH

from .e2e_helpers import OUTPUT, WAIT_MS, start_server, stop_server

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# The ends and middle of Vega's palettes (vega-scale's, not d3's: no white end), reversed as the
# spec asks: greys e2e2e2..1e1e1e, redblue 8c0d25..f2efee..134b85
DARK, LIGHT = (30, 30, 30), (226, 226, 226)  # greys: the smallest value, the largest
BLUE, CENTRE, RED = (19, 75, 133), (242, 239, 238), (140, 13, 37)  # redblue: -m, 0, m
NEAR = 6  # per channel: a colour "is" an end within this much
COLS = 3  # cells per panel (heatmap_page.py's one row)
SEEN = 60  # px: a run of one colour this wide, on half a panel's height of rows or more, is a cell


@pytest.fixture(scope="module")
def heatmaps(tmp_path_factory):
    """Yield a server of tests/e2e/heatmap_page.py (no exercises proven: it grades nothing)."""
    OUTPUT.mkdir(exist_ok=True)
    data = tmp_path_factory.mktemp("heatmaps") / "var"
    running = start_server(
        data,
        OUTPUT / "heatmap-server.log",
        settings={"PYTHONPATH": str(OUTPUT.parent)},
        prove=False,
        script="tests/e2e/heatmap_page.py",
    )
    yield running
    stop_server(running.process)


def test_the_scales_are_shared_and_centred(heatmaps, page):
    page.goto(heatmaps.url)
    positive, negative = (_cells(page, case) for case in ("positive", "negative"))
    # diffs -0.1, 0, +0.5: the scale spans -0.5..0.5, so 0 is its centre and +0.5 its red end
    assert _near(positive["diff"][1], CENTRE), f"positive: 0 is off centre: {positive['diff']}"
    assert _near(positive["diff"][2], RED), f"positive: +0.5 is not the end: {positive['diff']}"
    # diffs +0.1, 0, -0.4: the scale spans -0.4..0.4
    assert _near(negative["diff"][1], CENTRE), f"negative: 0 is off centre: {negative['diff']}"
    assert _near(negative["diff"][2], BLUE), f"negative: -0.4 is not the end: {negative['diff']}"
    for cells in (positive, negative):
        yours, autograd = cells["yours"], cells["autograd"]
        assert _near(yours[1], autograd[1], 2), f"1.0 coloured twice: {yours[1]}, {autograd[1]}"
    # the smallest and largest of both panels are yours (positive), autograd's (negative)
    assert _near(positive["yours"][0], DARK) and _near(positive["yours"][2], LIGHT), positive
    assert not _near(positive["autograd"][2], LIGHT), f"1.5 is not the largest: {positive}"
    assert _near(negative["autograd"][0], DARK) and _near(negative["autograd"][2], LIGHT), negative
    assert not _near(negative["yours"][2], LIGHT), f"1.6 is not the largest: {negative}"


def _near(colour, expected, within: int = NEAR) -> bool:
    """Say whether two colours differ by at most `within` in every channel."""
    return all(abs(a - b) <= within for a, b in zip(colour, expected, strict=True))


def _cells(page, case: str) -> dict[str, list[tuple[int, ...]]]:
    """Return the colour at the centre of each cell of each panel of one chart, once drawn."""
    canvas = page.locator(f".st-key-heatmap-{case} canvas")
    canvas.wait_for(timeout=WAIT_MS)
    deadline = time.monotonic() + 20
    while True:
        image = _screenshot(canvas)
        lefts, middle = _panels(image)
        if len(lefts) == 3 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    image.save(OUTPUT / f"heatmap-{case}.png")
    assert len(lefts) == 3, f"{len(lefts)} panels found in test-output/heatmap-{case}.png"
    width = PANEL_WIDTH / COLS
    centres = [[round(left + (col + 0.5) * width) for col in range(COLS)] for left in lefts]
    colours = [[image.getpixel((x, middle)) for x in xs] for xs in centres]
    return dict(zip(("yours", "autograd", "diff"), colours, strict=True))


def _screenshot(canvas):
    """Return the canvas's pixels as an RGB image."""
    from PIL import Image

    return Image.open(io.BytesIO(canvas.screenshot())).convert("RGB")


def _panels(image) -> tuple[list[int], int]:
    """Return the left edge of each panel's cells, and a row through them. A cell is a run of
    one colour, not the white page, at least SEEN px wide on many rows; a panel's first cell
    is never white (heatmap_page.py), so a panel starts where a cell starts with none before."""
    runs, pixels = Counter(), image.load()
    for y in range(image.height):
        row = [pixels[x, y] for x in range(image.width)]
        runs.update((x0, x1, y) for x0, x1 in _runs(row))
    cells = Counter((x0, x1) for x0, x1, _ in runs)
    kept = sorted(span for span, rows in cells.items() if rows >= PANEL_HEIGHT // 2)
    ends = {x1 for _, x1 in kept}
    lefts = [x0 for x0, _ in kept if not any(abs(x0 - end) <= 2 for end in ends)]
    rows = [y for x0, x1, y in runs if (x0, x1) in kept]
    return lefts, (min(rows) + max(rows)) // 2 if rows else 0


def _runs(row: list[tuple[int, ...]]):
    """Yield the (start, end) of each run of one colour, not white, at least SEEN px wide."""
    start = 0
    for x in range(1, len(row) + 1):
        if x == len(row) or row[x] != row[start]:
            if x - start >= SEEN and row[start] != (255, 255, 255):
                yield start, x
            start = x
