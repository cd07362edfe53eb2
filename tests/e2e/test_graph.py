"""In a real browser: the graph of each scenario is drawn, and a click on a node opens its
exercise."""

from __future__ import annotations

import pytest

from .e2e_helpers import OUTPUT, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TIMEOUT_MS = 60_000


def test_home_draws_the_graph_and_a_node_opens_its_exercise(server, page):
    open_page(page, server.url)
    lecture = page.locator(".stGraphVizChart svg").first
    lecture.wait_for(timeout=TIMEOUT_MS)
    assert lecture.locator("g.node").count() == 29, "every tensor of the lecture's MLP"
    page.screenshot(path=OUTPUT / "home-graph.png", full_page=True)
    for title in ("The graph of",):
        for expander in page.get_by_text(title, exact=False).all()[1:]:
            expander.click()
    page.locator(".stGraphVizChart svg").nth(3).wait_for(timeout=TIMEOUT_MS)
    assert page.locator(".stGraphVizChart svg").count() == 4, "one graph per scenario"
    lecture.locator("g.node", has_text="counts_sum_inv").locator("a").first.click()
    page.wait_for_url(f"{server.url}/dcounts_sum_inv", timeout=TIMEOUT_MS)
    page.get_by_text("counts_sum_inv", exact=False).first.wait_for(timeout=TIMEOUT_MS)
