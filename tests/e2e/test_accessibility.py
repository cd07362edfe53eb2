"""In a real browser: axe-core (its axe.min.js, shipped in the axe-playwright-python wheel) over
the main pages. No serious or critical violation that the app controls; those in Streamlit's
own markup are upstream, listed in test-output/axe-upstream.txt."""

from __future__ import annotations

import importlib.resources
import json

import pytest

from .e2e_helpers import OUTPUT, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PAGES = ("", "dlogprobs", "whole_pass", "progress", "training")
SERIOUS = {"serious", "critical"}
TIMEOUT_MS = 180_000
# Markup that Streamlit draws and the app cannot change (its navigation lists, its widgets'
# frames), by the selector axe reports.
UPSTREAM = ("stSidebarNav", "stNavSection", "stSidebarNavItems", "stToolbar")
RUN_AXE = "async () => await axe.run(document, {resultTypes: ['violations']})"


def _axe_script() -> str:
    return str(importlib.resources.files("axe_playwright_python").joinpath("axe.min.js"))


def _violations(page, url: str) -> list[dict]:
    """Open url once its page is drawn, run axe-core and return its serious violations, one
    entry per rule and node."""
    open_page(page, url)
    page.wait_for_load_state("networkidle")
    page.add_script_tag(path=_axe_script())
    found = page.evaluate(RUN_AXE)["violations"]
    return [
        {"page": url, "rule": v["id"], "impact": v["impact"], "target": json.dumps(n["target"])}
        for v in found
        for n in v["nodes"]
        if v["impact"] in SERIOUS
    ]


def _upstream(violation: dict) -> bool:
    return any(name in violation["target"] for name in UPSTREAM)


def test_no_serious_violation_that_the_app_controls(server, page):
    found = [v for path in PAGES for v in _violations(page, f"{server.url}/{path}")]
    upstream = [v for v in found if _upstream(v)]
    (OUTPUT / "axe-upstream.txt").write_text(
        "".join(f"{v['page']} {v['rule']} ({v['impact']}) {v['target']}\n" for v in upstream)
    )
    ours = [v for v in found if not _upstream(v)]
    assert not ours, json.dumps(ours, indent=1)
