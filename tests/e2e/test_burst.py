"""In a real browser at 1400x900, one exercise page (issue 40): the local mode's default is a
learner's copy (no preview switch, no Dashboard, no Problems), a cut title in the navigation has
its tooltip, a wrong answer's heatmaps fit the column and its diagnosis is said once, and a burst
of 50 fast Ctrl+Enter submissions never brings up Streamlit's "Connection error" dialog.

That dialog ("Cached ForwardMsg MISS") came from Streamlit's forward-message cache: the server
sends an element it believes the browser holds by its hash only, on the word of a rerun request
that the browser sent before a finished run made it drop that element. Whether a given burst
meets that moment depends on timing, so besides looking for the dialog (and keeping a
screenshot), the test counts the messages the server sent by hash: with the cache off
(.streamlit/config.toml), none.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from app.panels import preview

from .e2e_helpers import EDITOR, OUTPUT, WAIT_MS, open_page, type_and_submit

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TIMEOUT_MS = 180_000
WRONG = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0\n"
ALSO_WRONG = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = 1.0 / n\n"
RIGHT = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / n\n"
DIAGNOSIS = "the loss is a mean over the batch, so each picked element has weight 1/n"
BURST = 50
CUT_TITLES = """() => [...document.querySelectorAll("[data-testid='stSidebarNavLink']")]
  .map((a) => [a.querySelector("span[label]"), a.title])
  .filter(([label]) => label && label.scrollWidth > label.clientWidth)
  .map(([label, title]) => [label.getAttribute("label"), title])"""


class Frames:
    """What the server sent over the page's websocket: every message, and those by hash only."""

    def __init__(self, page):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self.sent, self.by_hash, self.message = 0, 0, ForwardMsg
        page.on("websocket", lambda ws: ws.on("framereceived", self.received))

    def received(self, payload) -> None:
        if isinstance(payload, str):
            return
        message = self.message()
        message.ParseFromString(payload)
        self.sent += 1
        self.by_hash += message.WhichOneof("type") == "ref_hash"


def _within_the_column(page, element) -> None:
    """Assert that an element ends within the page's main column (nothing runs off it)."""
    column = page.get_by_test_id("stMainBlockContainer").bounding_box()
    box = element.bounding_box()
    assert box["x"] >= column["x"] - 1, (box, column)
    assert box["x"] + box["width"] <= column["x"] + column["width"] + 1, (box, column)


def _burst(page) -> None:
    """Submit BURST times as fast as keys go, alternating answers (their heatmaps come and go:
    the case in which a browser drops an element the next run needs)."""
    for i in range(BURST):
        page.keyboard.press("Control+a")
        page.keyboard.insert_text((WRONG, ALSO_WRONG, ALSO_WRONG)[i % 3])
        page.keyboard.press("Control+Enter")


def test_a_learners_page_at_1400x900_and_a_burst_of_submissions(server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    frames = Frames(page)
    errors: list[str] = []  # the page's own: said when the page stops answering
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("console", lambda m: m.type == "error" and errors.append(f"console: {m.text}"))
    open_page(page, f"{server.url}/dlogprobs")
    page.locator(EDITOR).wait_for(timeout=TIMEOUT_MS)
    nav = page.get_by_test_id("stSidebarNav").inner_text()
    assert "Dashboard" not in nav and "Problems" not in nav, "a learner's copy by default"
    assert page.get_by_text(preview.SWITCH).count() == 0
    cut = page.evaluate(CUT_TITLES)
    assert cut and all(title == whole for whole, title in cut), cut  # each with its tooltip

    type_and_submit(page, WRONG)
    page.get_by_text("Not yet.", exact=False).first.wait_for(timeout=TIMEOUT_MS)
    chart = page.locator(".bn-heat").first  # the heatmaps' three pictures
    chart.wait_for(timeout=TIMEOUT_MS)
    chart.evaluate("e => e.scrollIntoView({block: 'center'})")
    _within_the_column(page, chart)
    page.screenshot(path=OUTPUT / "dlogprobs-1400-heatmaps.png")
    said = page.get_by_test_id("stMain").inner_text()
    assert said.count(DIAGNOSIS) == 1, "the verdict's sentence, once"

    _burst(page)
    page.wait_for_timeout(3_000)  # the burst's last runs
    page.wait_for_function(
        "() => !document.querySelector(\"[data-testid='stStatusWidgetRunningIcon']\")",
        timeout=TIMEOUT_MS,
    )
    page.screenshot(path=OUTPUT / "dlogprobs-after-burst.png")
    assert page.get_by_role("dialog").count() == 0, "Streamlit's connection error dialog"
    assert page.get_by_text("Cached ForwardMsg").count() == 0
    assert frames.sent > BURST and frames.by_hash == 0, (frames.sent, frames.by_hash)
    page.wait_for_timeout(5_000)  # the rate limit's tokens come back: one a second
    # Once seen: a white page, the server's log clean. The browser's tree update had thrown
    # ("'setIn' cannot be called on an ElementNode"): a kept delta of the notices' fragment
    # landed in an element (issue 39; fixed in app/panels/workbench.py, and tested without a
    # browser by test_exercise.py's test_a_rerun_that_drops_the_work_areas_unsent_deltas_...).
    try:
        type_and_submit(page, RIGHT)  # the page still answers
    except PlaywrightError as error:
        shown = page.locator("body").inner_text()[:300]
        raise AssertionError(f"after the burst the page shows {shown!r}; {errors[-12:]}") from error
    page.get_by_text("Solved.", exact=False).first.wait_for(timeout=WAIT_MS)
    expect(page.get_by_role("dialog")).to_have_count(0)
    context.close()
