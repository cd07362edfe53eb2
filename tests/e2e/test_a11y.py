"""In a real browser: axe-core over the main pages (Home, an exercise, Exercise 2 with its
forward lines' notes, the whole pass, Progress, training). No serious or critical violation,
nor a skipped heading level, in what the app controls; those in Streamlit's own markup are
upstream: printed, and listed in test-output/axe-upstream.txt.

axe-core's axe.min.js (MPL-2.0) comes from the axe-playwright-python wheel, a dev dependency
pinned with its hash in requirements-dev.lock: installed by `scripts/setup dev`, nothing is
fetched while the tests run. Only the page itself is checked (`iframes: false`): the editor's
frame is a component's own document.
"""

from __future__ import annotations

import importlib.resources
from collections import Counter

import pytest

from .e2e_helpers import EDITOR, OUTPUT, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TIMEOUT_MS = 180_000
# Each page by its address, and what shows that it is drawn whole.
PAGES = {
    "home": ("", ".stGraphVizChart svg"),
    "an exercise": ("dlogprobs", EDITOR),
    "exercise 2": ("dlogits_fused", EDITOR),  # its notes' code spans sit in captions
    "the whole pass": ("whole_pass", "[data-testid='stFileUploaderDropzone']"),
    "progress": ("progress", "[data-testid='stMetricValue']"),
    "training": ("training", EDITOR),
}
SERIOUS = {"serious", "critical"}
ALSO = {"heading-order"}  # moderate for axe; a level skipped was one of the findings
# Markup that Streamlit draws and the app cannot change: (axe rule, the data-testid of the
# Streamlit element it sits in, why it is Streamlit's).
UPSTREAM = (
    ("list", "stSidebarNav", "st.navigation puts each section's <div> straight in a <ul>"),
    ("listitem", "stSidebarNav", "so the sections' <li> items have no <ul> of their own"),
    ("presentation-role-conflict", "stFileUploader", "st.file_uploader's drop zone"),
)
# Every node of every violation, with the data-testids of the Streamlit elements around it.
RUN_AXE = """async () => {
  const found = await axe.run(document, {resultTypes: ["violations"], iframes: false});
  return found.violations.flatMap((v) => v.nodes.map((n) => {
    const owners = [];
    for (let e = document.querySelector(n.target[0]); e; e = e.parentElement) {
      if (e.dataset && e.dataset.testid) owners.push(e.dataset.testid);
    }
    return {rule: v.id, impact: v.impact, target: n.target.join(" "), owners,
            html: n.html.slice(0, 160), why: (n.failureSummary || "").slice(0, 300)};
  }));
}"""
SETTLED = """() => !document.querySelector("[data-stale='true']")
  && !document.querySelector("[data-testid='stStatusWidgetRunningIcon']")"""


def _axe_script() -> str:
    """Return the path of axe.min.js in the installed axe-playwright-python wheel."""
    import axe_playwright_python  # a dev dependency: scripts/setup dev installs it

    return str(importlib.resources.files(axe_playwright_python).joinpath("axe.min.js"))


def _violations(page, url: str, ready: str, name: str) -> list[dict]:
    """Open a page, wait until it is drawn and settled, run axe-core over it and return its
    violations, one per rule and node."""
    open_page(page, url)
    page.locator(ready).first.wait_for(timeout=TIMEOUT_MS)
    page.wait_for_function(SETTLED, timeout=TIMEOUT_MS)
    page.screenshot(path=OUTPUT / f"a11y-{name.replace(' ', '-')}.png", full_page=True)
    page.add_script_tag(path=_axe_script())
    return [v | {"page": name} for v in page.evaluate(RUN_AXE)]


def upstream(violation: dict) -> str:
    """Return why a violation is Streamlit's own, or "" when the app controls it."""
    for rule, owner, why in UPSTREAM:
        if violation["rule"] == rule and owner in violation["owners"]:
            return why
    return ""


def _counted(violation: dict) -> bool:
    return violation["impact"] in SERIOUS or violation["rule"] in ALSO


def _line(v: dict) -> str:
    return f"{v['page']}: {v['rule']} ({v['impact']}) at {v['target']}: {v['html']}"


def test_no_serious_violation_that_the_app_controls(server, page):
    found = []
    for name, (path, ready) in PAGES.items():
        found += _violations(page, f"{server.url}/{path}", ready, name)
    theirs = [v for v in found if upstream(v)]
    (OUTPUT / "axe-upstream.txt").write_text("".join(f"{_line(v)}\n" for v in theirs))
    kinds = Counter((v["page"], v["rule"], v["impact"], upstream(v)) for v in theirs)
    print("\naxe-core, upstream (Streamlit's markup), nodes per page and rule:")
    for (name, rule, impact, why), count in kinds.items():
        print(f"  {name}: {rule} ({impact}) x{count}: {why}")
    ours = [v for v in found if not upstream(v)]
    for v in ours:
        print(f"  the app's{'' if _counted(v) else ' (not counted)'}: {_line(v)}")
    assert not [v for v in ours if _counted(v)], "\n".join(
        f"{_line(v)}\n    {v['why']}" for v in ours if _counted(v)
    )


def test_the_upstream_list_names_only_streamlits_own_elements():
    """The exemptions match by rule and by the Streamlit element around the node, not by page:
    the same rule anywhere else (the app's own markup) is counted."""
    nav = {"rule": "listitem", "owners": ["stSidebarNavItems", "stSidebarNav", "stSidebar"]}
    assert upstream(nav)
    assert not upstream(nav | {"owners": ["stMarkdownContainer", "stMain"]})
    assert not upstream({"rule": "color-contrast", "owners": ["stSidebarNav"]})
