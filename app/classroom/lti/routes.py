"""The LTI 1.3 routes served beside the pages by app/server.py's st.App (docs/lms.md):

    /lti/login        the platform starts the OIDC login: redirect to its authorization
    /lti/launch       the platform posts the id_token: checked, the person signed in, the app
    /lti/jwks         the tool's public key (JSON Web Key Set)
    /lti/config.json  Canvas's tool configuration, pasted or fetched when registering

A launch is refused (400, and one log line saying why) when its state cookie is missing, its
nonce was used before (a replay), its signature matches no key of the platform, it expired, its
audience or deployment is not registered, or its message is not a resource link launch.
"""

from __future__ import annotations

import logging

import requests
from pylti1p3.exception import LtiException, OIDCException, ToolConfException
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from streamlit.web.server.starlette.starlette_auth_routes import _set_auth_cookie

from app import services
from app.classroom.lti import adapters, keys, roster
from app.classroom.lti.launches import CONTEXT, ROLES, link_of, sis_of, user_claims
from app.classroom.lti.roster import Roster, Rosters
from app.classroom.people import INSTRUCTOR

log = logging.getLogger("app.lti")
REFUSALS = (OIDCException, LtiException, ToolConfException)  # the library's, each with its reason
NO_STORE = {"Cache-Control": "no-store"}
REFUSED = "The launch from your LMS was refused: {why}. Open the tool from your course again."
TITLE = "Backprop Ninja"
SCOPES = (
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
)


async def _request(request: Request) -> adapters.LtiRequest:
    """Return the library's view of a request: its parameters (form, else query) and cookies."""
    params = dict(request.query_params)
    if request.method == "POST":
        params |= {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    return adapters.LtiRequest(params, dict(request.cookies), request.url.scheme == "https")


def origin(request: Request) -> str:
    """Return the address the browser reached the tool at (scheme and host)."""
    return f"{request.url.scheme}://{request.url.netloc}"


async def login(request: Request) -> Response:
    """Start the platform's OIDC login: redirect to its authorization endpoint with a state
    (also a cookie) and a nonce (kept in the database)."""
    lti = await _request(request)

    def redirect() -> Response:
        rows = services.store().lti
        conf = adapters.tool_config(rows.registrations())
        started = adapters.Login(lti, conf, **adapters.services(lti, rows))
        return started.redirect(f"{origin(request)}/lti/launch")

    try:
        return await run_in_threadpool(redirect)
    except REFUSALS as err:
        return _refused("login", err)


FRAMED = (
    "Your LMS opened Backprop Ninja inside its own page, where browsers block the sign-in. "
    "Open the link in a new tab (right click, Open in new tab), and ask your instructor to set "
    "it to open in a new window."
)


async def launch(request: Request) -> Response:
    """Check the platform's id_token; sign its person in (Streamlit's user cookie) and open the
    app; refuse anything the check does not pass, and a launch inside a frame (its browser
    says so: Sec-Fetch-Dest), where the sign-in cookie would be blocked."""
    if request.headers.get("sec-fetch-dest") == "iframe":
        log.warning("LTI launch refused: opened inside a frame")
        return HTMLResponse(f"<p>{FRAMED}</p>", status_code=400, headers=NO_STORE)
    lti = await _request(request)

    def checked() -> dict:
        rows = services.store().lti
        conf = adapters.tool_config(rows.registrations())
        launch = adapters.Launch(
            lti, conf, requests_session=adapters.http(), **adapters.services(lti, rows)
        )
        data = launch.get_launch_data()
        link = link_of(data)
        if link is not None:
            rows.link(link)  # where this person's scores go (grades.py)
        if sis := sis_of(data):
            Rosters(services.store()).note_sis(
                f"{data['iss']} {data['sub']}", sis
            )  # the LMS books carry it
        _read_roster(data)
        return data

    try:
        data = await run_in_threadpool(checked)
    except REFUSALS as err:
        return _refused("launch", err)
    claims = user_claims(data, origin(request))
    log.info("LTI launch: %s %s signed in", claims["iss"], claims["sub"])
    opened = RedirectResponse("/", status_code=303, headers=NO_STORE)
    await sign_in(opened, claims)
    return opened


async def sign_in(response: Response, claims: dict) -> None:
    """Set Streamlit's signed user cookie on a response, so st.user reads the claims as an
    OIDC sign-in. Streamlit (1.67) has no public call for it: this is the one use of its
    private `_set_auth_cookie` (imported at this module's import, so a Streamlit that moved
    it stops the server at its start, and tests/app/lti/test_lti.py says so)."""
    await _set_auth_cookie(response, claims, {})


def _read_roster(launch: dict) -> None:
    """On an instructor's launch, keep the course's roster address (to read it again on
    demand) and read the roster into the class (roster.py); a roster that cannot be read is
    logged, and the launch goes on."""
    url = roster.memberships_url(launch)
    if url is None or roster.role_of(launch.get(ROLES, [])) != INSTRUCTOR:
        return
    store = services.store()
    audience = launch["aud"][0] if isinstance(launch["aud"], list) else launch["aud"]
    context = launch.get(CONTEXT) if isinstance(launch.get(CONTEXT), dict) else {}
    Rosters(store).keep(Roster(url, launch["iss"], audience, str(context.get("title", ""))))
    found = [
        r for r in store.lti.registrations() if (r.issuer, r.client_id) == (launch["iss"], audience)
    ]
    key = keys.tool_key()
    if key is None:
        return
    try:
        added = roster.read(store, found[0], key, url)
    except (LtiException, requests.RequestException) as err:
        log.warning("LTI roster not read: %s", err)
        return
    log.info("LTI roster read: %d new person(s)", added)


def _refused(step: str, err: Exception) -> Response:
    """Log why an LTI step was refused, and say so to the person."""
    log.warning("LTI %s refused: %s", step, err)
    return HTMLResponse(REFUSED.format(why=_plain(str(err))), status_code=400, headers=NO_STORE)


def _plain(text: str) -> str:
    """Return text safe inside HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


async def jwks(request: Request) -> Response:
    """Answer the tool's public key set."""
    return JSONResponse(keys.jwks(keys.section()), headers=NO_STORE)


async def config_json(request: Request) -> Response:
    """Answer Canvas's LTI 1.3 configuration of the tool (Developer Keys, "Paste JSON")."""
    here = origin(request)
    return JSONResponse(
        {
            "title": TITLE,
            "description": "Backpropagation by hand, graded as you go.",
            "oidc_initiation_url": f"{here}/lti/login",
            "target_link_uri": f"{here}/lti/launch",
            "public_jwk_url": f"{here}/lti/jwks",
            "scopes": list(SCOPES),
            "extensions": [
                {
                    "platform": "canvas.instructure.com",
                    "privacy_level": "public",
                    "settings": {
                        "placements": [
                            {
                                "placement": "link_selection",
                                "message_type": "LtiResourceLinkRequest",
                            }
                        ]
                    },
                }
            ],
        }
    )


ROUTES = [
    Route("/lti/login", login, methods=["GET", "POST"]),
    Route("/lti/launch", launch, methods=["POST"]),
    Route("/lti/jwks", jwks),
    Route("/lti/config.json", config_json),
]
