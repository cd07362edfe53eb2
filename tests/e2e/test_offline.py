"""In a real browser: no page asks anything of another machine (fonts and assets are local), and
no page asks for anything that is missing.

Streamlit's own two 404s are allowed, and only they: a page opened at its own path (say
/dlogprobs) first asks for /dlogprobs/_stcore/health and /dlogprobs/_stcore/host-config, in
case the whole app is served under that path, gets 404 for both, and 100 ms later asks for
/_stcore/health and /_stcore/host-config, which answer (Streamlit's frontend,
`getPossibleBaseUris`; its issue 7074). The app cannot answer them: a 200 there would make the
page take /dlogprobs/ for the app's root and open its websocket under it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest

from app.panels import offline

from .e2e_helpers import OUTPUT, WAIT_MS, open_page, type_and_submit

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
LOCAL_SCHEMES = {"data", "blob", "about"}
ANSWER = "dprobs = 1.0 / probs  # a wrong answer still shows every part of the feedback\n"
PROBES = ("_stcore/health", "_stcore/host-config")  # Streamlit's, under the page's own path
ABORTED = "net::ERR_ABORTED"


@dataclass
class Visit:
    """What a browser asked for while it opened every kind of page: every URL, and each
    request that failed or was answered with an error (`missing`: status or failure, URL, and
    the address of the page that asked)."""

    requested: list[str] = field(default_factory=list)
    missing: list[tuple[str, str, str]] = field(default_factory=list)

    def response(self, response) -> None:
        if response.status >= 400:
            self.missing.append((str(response.status), response.url, _page_of(response.request)))

    def failed(self, request) -> None:
        if request.failure != ABORTED:  # cancelled by the browser (a page left), not refused
            self.missing.append((request.failure or "failed", request.url, _page_of(request)))


def _page_of(request) -> str:
    """Return the address of the page whose frame made request (a service worker's: "")."""
    try:
        return request.frame.page.url
    except Exception:  # noqa: BLE001 - no frame: a service worker's request
        return ""


@pytest.fixture(scope="module")
def visit(server, browser) -> Visit:
    """Open every kind of page once in a fresh context and return what it asked for."""
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    seen = Visit()
    context.on("request", lambda request: seen.requested.append(request.url))
    context.on("response", seen.response)
    context.on("requestfailed", seen.failed)
    page = context.new_page()
    try:
        _visit_every_kind_of_page(server, page)
    finally:
        context.close()
    return seen


def local(url: str) -> bool:
    """Return whether a request's URL stays on this machine."""
    parts = urlsplit(url)
    return parts.scheme in LOCAL_SCHEMES or parts.hostname in LOCAL_HOSTS


def test_local_means_this_machine_only():
    assert local("http://127.0.0.1:8501/_stcore/health") and local("data:font/woff2;base64,AA")
    assert not local("https://fonts.googleapis.com/css2?family=Source+Code+Pro")
    assert not local("http://localhost.example.com/x")


def test_no_page_requests_anything_outside_the_machine(visit):
    requested = visit.requested
    outside = sorted({url for url in requested if not local(url)})
    assert not outside, f"requests that left the machine: {outside}"
    editor_font = [u for u in requested if "/component/" in u and u.endswith(offline.FONT_FILE)]
    assert editor_font, "the editor's font came from the app's copy of the editor"


def streamlits_probe(url: str, page: str) -> bool:
    """Return whether url is one of Streamlit's probes for an app served under page's path."""
    path, asked = urlsplit(page).path.strip("/"), urlsplit(url).path.strip("/")
    return bool(path) and asked in {f"{path}/{probe}" for probe in PROBES}


def test_streamlits_probes_are_told_apart():
    page = "http://127.0.0.1:8501/dlogprobs"
    assert streamlits_probe("http://127.0.0.1:8501/dlogprobs/_stcore/health", page)
    assert streamlits_probe("http://127.0.0.1:8501/dlogprobs/_stcore/host-config", page)
    assert not streamlits_probe("http://127.0.0.1:8501/_stcore/health", page)
    assert not streamlits_probe("http://127.0.0.1:8501/dprobs/_stcore/health", page)
    assert not streamlits_probe("http://127.0.0.1:8501/_stcore/health", "http://127.0.0.1:8501/")
    assert not streamlits_probe("http://127.0.0.1:8501/component/x/font.woff2", page)


def test_no_page_asks_for_anything_missing(visit):
    unexpected = [seen for seen in visit.missing if not streamlits_probe(seen[1], seen[2])]
    assert not unexpected, f"failed or refused requests (status, URL, page): {unexpected}"
    # The listeners heard Streamlit's probes (if a new Streamlit stops making them, say so in
    # the module's docstring and drop this line).
    probed = {urlsplit(page).path for _, _, page in visit.missing}
    assert probed >= {"/dprobs", "/progress"}, visit.missing


def _visit_every_kind_of_page(server, page) -> None:
    """Open Home, an exercise (submitting once), the whole pass, progress and training."""
    open_page(page, server.url)
    page.get_by_text("Your map of the backward pass").wait_for(timeout=WAIT_MS)
    open_page(page, f"{server.url}/dprobs")
    type_and_submit(page, ANSWER)
    page.get_by_text("Not yet.", exact=False).first.wait_for(timeout=WAIT_MS)
    page.screenshot(path=OUTPUT / "offline-exercise.png", full_page=True)
    for path in ("whole_pass", "progress", "training"):
        open_page(page, f"{server.url}/{path}")
        page.wait_for_load_state("networkidle", timeout=WAIT_MS)
