"""What a browser may keep: the code editor's files named by their content.

Streamlit serves a component's files as `public` with no lifetime and no validator, so a browser
fetched the editor's scripts again for every page that drew the editor (1.5 MB, gzipped anew by
the server each time: about 30 ms of its CPU). A file whose name carries its content's hash
(webpack's `static/js/2.519de878.chunk.js`; its file loader's 32 hex digits) never changes under
that name, so it is marked KEPT: a new build of the editor has new names. The editor's
index.html, which names them, is still asked for every time (Streamlit's `no-cache`).
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_NAMED = re.compile(r"/component/[^?#]*/(?:[^/]*[.-])?[0-9a-f]{8,}(?:\.chunk)?\.(?:js|css)$")
KEPT = b"public, max-age=31536000, immutable"  # a year


class KeepContentNamedFiles:
    """ASGI middleware: a component's content-named file, served, is marked KEPT."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not CONTENT_NAMED.search(scope["path"]):
            await self.app(scope, receive, send)
            return

        async def kept(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                headers = [(k, v) for k, v in message["headers"] if k.lower() != b"cache-control"]
                message = {**message, "headers": [*headers, (b"cache-control", KEPT)]}
            await send(message)

        await self.app(scope, receive, kept)
