"""In a real browser: the heatmaps' pictures (grader/feedback/picture.py, laid out by
app/views/plots.py) are drawn scaled up with their cells' colours, on the scales they should be.
Pixels are read from a screenshot of each picture, at the centres of its cells
(tests/e2e/heatmap_page.py draws the heatmaps)."""

from __future__ import annotations

import io

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
    """Return the colour at the centre of each cell of each panel of one heatmap, once drawn."""
    pictures = page.locator(f".st-key-heatmap-{case} img")
    pictures.nth(2).wait_for(timeout=WAIT_MS)
    page.wait_for_function(
        f"() => [...document.querySelectorAll('.st-key-heatmap-{case} img')]"
        ".every((img) => img.complete && img.naturalWidth > 0)",
        timeout=WAIT_MS,
    )
    assert pictures.count() == 3, "three panels"
    colours = []
    for i in range(3):
        box = pictures.nth(i).bounding_box()
        assert (box["width"], box["height"]) == (PANEL_WIDTH, PANEL_HEIGHT), "scaled up"
        image = _screenshot(pictures.nth(i))
        image.save(OUTPUT / f"heatmap-{case}-{i}.png")
        step = image.width / COLS
        colours.append(
            [image.getpixel((int((c + 0.5) * step), image.height // 2)) for c in range(COLS)]
        )
    return dict(zip(("yours", "autograd", "diff"), colours, strict=True))


def _screenshot(element):
    """Return an element's pixels as an RGB image."""
    from PIL import Image

    return Image.open(io.BytesIO(element.screenshot())).convert("RGB")
