"""app/services/assets.py: the code editor's content-named files are marked as ones a browser
may keep (a year, immutable); every other response keeps the Cache-Control it was given."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from app.services.assets import KeepContentNamedFiles

KEPT = "public, max-age=31536000, immutable"
EDITOR = "/component/app.panels.editor.code_editor"


def cache_control(path: str, status: int = 200, given: str = "public") -> str:
    """Return the Cache-Control of a response to path through the middleware, from a stand-in
    app that answers with status and the Cache-Control given (Streamlit's, for a component)."""

    def answer(request):
        return Response("x" * 10, status_code=status, headers={"Cache-Control": given})

    served = Starlette(
        routes=[Route("/{path:path}", answer)], middleware=[Middleware(KeepContentNamedFiles)]
    )
    with TestClient(served) as client:
        return client.get(path).headers["cache-control"]


@pytest.mark.parametrize(
    "name",
    [
        "static/js/2.519de878.chunk.js",
        "static/js/main.1bb1c91a.chunk.js",
        "static/js/runtime-main.c60325b9.js",
        "014d84e08c5a2ee1b019d81a57f69b6d.js",
    ],
)
def test_the_editors_content_named_files_may_be_kept(name):
    assert cache_control(f"{EDITOR}/{name}") == KEPT


@pytest.mark.parametrize(
    ("path", "status", "given"),
    [
        (f"{EDITOR}/index.html", 200, "no-cache"),  # names the scripts: asked for every time
        (f"{EDITOR}/bootstrap.min.css", 200, "public"),  # no hash in its name
        (f"{EDITOR}/SourceCodeVF-Upright.woff2", 200, "public"),
        (f"{EDITOR}/static/js/2.519de878.chunk.js", 404, "no-cache"),  # not served
        ("/static/js/index.1bb1c91a.js", 200, "public, immutable, max-age=1"),  # Streamlit's
        ("/media/0123456789abcdef.js", 200, "no-cache"),
    ],
)
def test_other_responses_keep_their_cache_control(path, status, given):
    assert cache_control(path, status, given) == given
