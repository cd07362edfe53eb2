"""The server (`streamlit run app/server.py`, which scripts/serve runs): Streamlit's ASGI app,
`st.App`, serving the pages of main.py, with the routes a page cannot serve beside them.

    /ready     200 when this server can serve a class, else 503 naming the failing parts
               (JSON; HAProxy's health check: app/services/readiness.py)
    /metrics   this server's metrics in Prometheus's text format (app/services/metrics.py)
    /lti/...   an LMS's LTI 1.3 launch: login, launch, jwks, config.json (app/classroom/lti/)

The code editor's content-named files are served as ones a browser may keep
(app/services/assets.py): a page that draws the editor no longer fetches its scripts again.

A route is one line of ROUTES: `Route("/lti/launch", lti.launch, methods=["POST"])`. The
lifespan checks the configuration before any page is served (`python -m app.config`'s checks:
the server does not start on a bad one) and starts the scenarios' first run, the sandbox and
the warm-up, so that a replica gets ready with no page opened (HAProxy sends it none before).

`kill -USR1 <pid>` writes every thread's stack to the server's log (standard error) and the
server goes on: what a page that does not open is waiting for (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import faulthandler
import logging
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

import streamlit as st
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from app import services
from app.classroom import lti
from app.config import ConfigError, checked
from app.services import assets, metrics, readiness
from app.training import runs

T = TypeVar("T")
log = logging.getLogger("app.server")
NO_STORE = {"Cache-Control": "no-store"}


async def ready(request: Request) -> Response:
    """Answer 200 when every part is ready, else 503; the body names each part and what it
    found."""
    found = await _one_at_a_time(readiness.check)
    status = 200 if found.ready else 503
    return JSONResponse(found.as_json(), status_code=status, headers=NO_STORE)


async def metrics_text(request: Request) -> Response:
    """Answer this server's metrics, read now."""
    body = await _one_at_a_time(metrics.exposition)
    return Response(body, media_type=metrics.CONTENT_TYPE, headers=NO_STORE)


ROUTES = [
    Route("/ready", ready),
    Route("/metrics", metrics_text),
    *lti.ROUTES,  # an LMS's launch (LTI 1.3: app/classroom/lti/)
]

_turns: dict[Callable, asyncio.Lock] = {}


async def _one_at_a_time(work: Callable[[], T]) -> T:
    """Run work in a thread, one call of it at a time: a database that hangs holds one thread,
    not one per health check (the checks wait here, and time out at the proxy)."""
    async with _turns.setdefault(work, asyncio.Lock()):
        return await run_in_threadpool(work)


@asynccontextmanager
async def lifespan(served: st.App) -> AsyncIterator[None]:
    """Refuse a bad configuration before serving; start what a replica needs to get ready and
    what a first submission needs; tell the metrics where to read the live gauges."""
    try:
        await run_in_threadpool(checked, [])
    except ConfigError as err:
        log.error("Not starting: %s", err)
        raise
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # a thread dump on demand
    metrics.LIVE.sandbox = services.sandbox_load
    metrics.LIVE.sessions = services.active_sessions
    metrics.LIVE.runs = runs.states
    await run_in_threadpool(services.start_background)
    yield


app = st.App(
    "main.py",
    routes=ROUTES,
    middleware=[Middleware(assets.KeepContentNamedFiles)],
    lifespan=lifespan,
    on_script_error=metrics.script_failed,
)
