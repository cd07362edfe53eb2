"""pylti1p3's few adapters to Starlette and to our store: a request, its cookies, a redirect,
the OIDC login and the message launch, and the launch data kept in the database (store.lti).

The library checks the launch (state, nonce, signature against the platform's keys, audience,
deployment, message); these classes only hand it what it reads and write what it keeps. Its own
storages keep a nonce after checking it, so a replayed launch passes; ours consumes it.
"""

from __future__ import annotations

import typing as t

import requests
from pylti1p3.cookie import CookieService
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.request import Request
from pylti1p3.session import SessionService
from pylti1p3.tool_config import ToolConfDict
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app.storage.lti import Lti, Registration

DAY = 86400


class LtiRequest(Request):
    """A Starlette request's parameters (its form or query) and cookies, read beforehand."""

    def __init__(self, params: dict, cookies: dict, secure: bool):
        super().__init__()
        self._params, self._cookies, self._secure = params, cookies, secure

    @property
    def session(self):
        return None

    def get_param(self, key: str):
        return self._params.get(key)

    def get_cookie(self, key: str):
        return self._cookies.get(key)

    def is_secure(self) -> bool:
        return self._secure


class Cookies(CookieService):
    """The library's cookies: read from the request, written onto the response."""

    def __init__(self, request: LtiRequest):
        self._request, self._to_set = request, {}

    def _get_key(self, key: str) -> str:
        return f"{self._cookie_prefix}-{key}"

    def get_cookie(self, name: str):
        return self._request.get_cookie(self._get_key(name))

    def set_cookie(self, name: str, value, exp: int | None = 3600):
        self._to_set[self._get_key(name)] = (value, exp)

    def apply(self, response: Response) -> Response:
        """Write the cookies set onto a response: cross-site (SameSite=None) over HTTPS, as a
        launch from the LMS's page needs; lax over plain HTTP (loopback)."""
        secure = self._request.is_secure()
        for key, (value, exp) in self._to_set.items():
            response.set_cookie(
                key, value, max_age=exp, path="/", secure=secure, httponly=True,
                samesite="none" if secure else "lax",
            )  # fmt: skip
        return response


class Moved(Redirect):
    """A redirect that carries the library's cookies."""

    def __init__(self, location: str, cookies: Cookies):
        super().__init__()
        self._location, self._cookies = location, cookies

    def do_redirect(self) -> Response:
        return self._cookies.apply(RedirectResponse(self._location, status_code=302))

    def do_js_redirect(self) -> Response:
        return self.do_redirect()

    def set_redirect_url(self, location: str):
        self._location = location

    def get_redirect_url(self) -> str:
        return self._location


class Login(OIDCLogin):
    """The OIDC login the platform starts (/lti/login)."""

    def get_redirect(self, url: str) -> Moved:
        return Moved(url, self._cookie_service)

    def get_response(self, html: str) -> Response:
        return HTMLResponse(html)

    def get_cookies_allowed_js_check(self) -> Response:
        return HTMLResponse("Cookies are needed to sign in from your LMS.", status_code=400)

    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)


HTTP_SECONDS = 10.0  # to connect, and between bytes of an answer, on each call to an LMS


class Bounded(requests.Session):
    """A session that gives up on an LMS that does not answer (the library sets no timeout,
    so a silent LMS held a score push, and the one queue of pushes behind it, for ever)."""

    def request(self, *args, **kwargs):
        kwargs.setdefault("timeout", HTTP_SECONDS)
        return super().request(*args, **kwargs)


def http() -> requests.Session:
    """Return the session for every call to an LMS: its key set, its token, scores, rosters."""
    session = Bounded()
    session.headers["User-Agent"] = "Backprop Ninja (LTI 1.3 tool)"
    return session


class Launch(MessageLaunch):
    """The launch the platform posts (/lti/launch)."""

    def _get_request_param(self, key: str) -> str:
        return self._request.get_param(key)


class Stored(LaunchDataStorage):
    """The library's state, nonces and launch data, in the database: any replica may receive
    the launch, and a nonce checked is gone (check_value consumes: the library checks only
    nonces with it)."""

    def __init__(self, rows: Lti):
        super().__init__()
        self._rows = rows

    def get_session_cookie_name(self):
        return None  # keys are random per login; the state cookie binds the browser

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str):
        return self._rows.get(self._prepare_key(key))

    def set_value(self, key: str, value, exp: int | None = None) -> None:
        self._rows.put(self._prepare_key(key), value, exp or DAY)

    def check_value(self, key: str) -> bool:
        return self._rows.consume(self._prepare_key(key))


def tool_config(registrations: list[Registration]) -> ToolConfDict:
    """Return the library's configuration of the registered platforms (each issuer may have
    several client ids: the id_token's audience picks one)."""
    issuers: dict[str, list] = {}
    for r in registrations:
        issuers.setdefault(r.issuer, []).append(
            {
                "default": not issuers.get(r.issuer),
                "client_id": r.client_id,
                "auth_login_url": r.login_url,
                "auth_token_url": r.token_url,
                "key_set_url": r.keys_url,
                "key_set": None,
                "deployment_ids": list(r.deployments),
            }
        )
    return ToolConfDict(t.cast(dict, issuers))


def services(request: LtiRequest, rows: Lti) -> dict:
    """Return the keyword arguments both Login and Launch take: cookies, session, storage."""
    session = SessionService(request)
    return {"session_service": session, "cookie_service": Cookies(request)} | {
        "launch_data_storage": Stored(rows)
    }
