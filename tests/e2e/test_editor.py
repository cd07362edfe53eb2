"""In a real browser: the Submit label pinned to the editor's corner never covers code."""

from __future__ import annotations

import re
import time

import pytest

from app.panels.editor import SUBMIT_LABEL

from .e2e_helpers import EDITOR, OUTPUT, WAIT_MS, editor_shows, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def overlap(a: dict, b: dict) -> bool:
    """Return whether two bounding boxes share any area."""
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def test_boxes_that_touch_nothing_do_not_overlap():
    box = {"x": 0, "y": 0, "width": 10, "height": 10}
    assert overlap(box, {**box, "x": 5, "y": 5})
    assert not overlap(box, {**box, "y": 10})


@pytest.mark.parametrize("count", [12, 40])  # the editor grows to fit 12; 40 lines scroll
def test_the_submit_label_leaves_the_last_line_readable(server, page, count):
    open_page(page, f"{server.url}/dh")
    frame = page.frame_locator(EDITOR)
    frame.locator(".ace_content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Backspace")
    last = f"dh = W{count} @ x  # the last line, long enough to reach the right-hand corner"
    page.keyboard.type("\n".join([f"x = {i}" for i in range(count - 1)] + [last]))
    editor_shows(page, "x = 0")
    line = frame.locator(".ace_line", has_text=last)
    line.wait_for(timeout=WAIT_MS)
    button = frame.get_by_text(SUBMIT_LABEL)
    boxes = settled(lambda: (line.bounding_box(), button.bounding_box(), iframe_box(page)))
    page.screenshot(path=OUTPUT / f"editor-{count}-lines.png")
    text, label, shown = boxes
    assert not overlap(text, label), "the label covers the last line"
    assert label["y"] + label["height"] <= shown["y"] + shown["height"], "the label is cut off"
    number = frame.locator(".ace_gutter-cell", has_text=re.compile(rf"^{count}$"))
    assert abs(number.bounding_box()["y"] - text["y"]) < 1, "the line number sits by its line"


def iframe_box(page) -> dict:
    """Return where the editor's frame is on the page."""
    return page.locator(EDITOR).bounding_box()


def settled(measure, seconds: float = 10):
    """Return measure() once two readings 0.5 s apart agree (the frame resizes as it grows)."""
    deadline = time.monotonic() + seconds
    before = measure()
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = measure()
        if now == before:
            return now
        before = now
    return before
