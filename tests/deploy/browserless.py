"""A browser without a screen, for the compose stack: HTTP(S) with cookies, and Streamlit's
websocket (bench/streamlit_client.py) carrying them, so a learner signs in through the OpenID
Connect provider and submits an answer through HAProxy without chromium (whose tests hold the
other test process; docs/test-time.md).

    browser = Browser(cafile, hosts={"provider:9400": "127.0.0.1:49152"})
    browser.sign_in("https://127.0.0.1:8443", "ada")
    verdict = browser.submit("https://127.0.0.1:8443", "dlogprobs", code)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import importlib.util
import ssl
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urljoin, urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg

ROOT = Path(__file__).resolve().parents[2]
SIGN_IN = "Sign in"  # app/classroom/signin.py's button
REPLICA = "X-Ninja-Replica"  # deploy/haproxy.cfg names the replica that answered


def client_module():
    """Import bench/streamlit_client.py (bench/ is a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(
        "streamlit_client", ROOT / "bench" / "streamlit_client.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@dataclass
class Reply:
    status: int
    location: str
    body: bytes
    replica: str | None  # HAProxy's X-Ninja-Replica


class Browser:
    """Cookies per host, the test's certificate trusted, and names the test resolves itself
    (the provider's name inside the compose network, reached on a published port)."""

    def __init__(self, cafile: Path, hosts: dict[str, str]):
        self.context = ssl.create_default_context(cafile=str(cafile))
        self.hosts = hosts
        self.jar: dict[str, dict[str, str]] = {}
        self.set_cookies: list[str] = []  # every Set-Cookie the app's side sent, as sent

    def request(self, url: str, form: dict | None = None) -> Reply:
        """GET url (POST the form, if one), keep its cookies; follow no redirect."""
        parts = urlsplit(url)
        address = self.hosts.get(parts.netloc, parts.netloc)
        host, _, port = address.partition(":")
        if parts.scheme == "https":
            connection = http.client.HTTPSConnection(host, int(port), context=self.context)
        else:
            connection = http.client.HTTPConnection(host, int(port), timeout=60)
        headers = {"Host": parts.netloc, "Cookie": self.cookies(parts.netloc)}
        body = urlencode(form).encode() if form is not None else None
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request("POST" if body is not None else "GET", path, body, headers)
        response = connection.getresponse()
        for cookie in response.headers.get_all("Set-Cookie") or []:
            name, _, value = cookie.split(";", 1)[0].partition("=")
            self.jar.setdefault(parts.netloc, {})[name.strip()] = value.strip()
            if parts.netloc not in self.hosts:
                self.set_cookies.append(cookie)
        location, replica = response.getheader("Location") or "", response.getheader(REPLICA)
        reply = Reply(response.status, location, response.read(), replica)
        connection.close()
        return reply

    def answer(self, url: str) -> Reply | None:
        """Return the reply to a GET of url, None while nothing answers there."""
        try:
            return self.request(url)
        except (OSError, http.client.HTTPException):
            return None

    def cookies(self, netloc: str) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.jar.get(netloc, {}).items())

    def session(self, base: str, page: str):
        """Return a websocket session on page carrying this browser's cookies and XSRF token."""
        session = ButtonSession(base, page)
        netloc = urlsplit(base).netloc
        xsrf = self.jar.get(netloc, {}).get("_streamlit_xsrf", "")
        session.connect_options = {
            "subprotocols": ["streamlit", xsrf],
            "additional_headers": {"Cookie": self.cookies(netloc), "Origin": base},
            "ssl": self.context,
        }
        return session

    def sign_in(self, base: str, who: str) -> None:
        """Sign in as who: the app's button, the provider's form, the callback."""
        assert self.request(f"{base}/_stcore/health").status == 200  # the XSRF cookie
        redirect = run(click_sign_in(self.session(base, "")))
        to_provider = self.request(urljoin(base, redirect))
        assert to_provider.status == 302, to_provider
        to_app = self.request(to_provider.location, {"sub": who})
        assert to_app.status == 302 and to_app.location.startswith(base), to_app
        back = self.request(to_app.location)
        assert back.status in (302, 307) and "_streamlit_user" in self.cookies(
            urlsplit(base).netloc
        ), back

    def submit(self, base: str, page: str, code: str):
        """Open page signed in, submit code, and return the verdict."""
        return run(open_and_submit(self.session(base, page), code))


def run(coroutine):
    """Run a coroutine in a thread of its own (a test process may run an event loop already)."""
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


async def click_sign_in(session) -> str:
    """Open the signed-out page, press Sign in, and return where Streamlit sends the browser."""
    try:
        await session.open(timeout=120, editor=False)
        return await session.click(SIGN_IN)
    finally:
        await session.close()


async def open_and_submit(session, code: str):
    try:
        await session.open(timeout=180)
        return await session.submit(code, timeout=180)
    finally:
        await session.close()


CLIENT = client_module()


class ButtonSession(CLIENT.StreamlitSession):
    """A session that also sees buttons, presses one, and hears an auth redirect."""

    def __init__(self, base_url: str, page: str):
        super().__init__(base_url, page)
        self.buttons: dict[str, str] = {}  # label -> widget id
        self.redirect: asyncio.Future | None = None

    async def open(self, timeout: float = 60.0, editor: bool = True) -> None:
        if editor:
            return await super().open(timeout)
        try:
            await super().open(timeout)
        except CLIENT.ClientError as err:
            if "showed no code editor" not in str(err):
                raise

    async def click(self, label: str, timeout: float = 60.0) -> str:
        """Press the button labelled label; return the auth redirect's address it causes."""
        await self.quiet(timeout)
        self.redirect = asyncio.get_running_loop().create_future()
        back = BackMsg()
        back.rerun_script.page_script_hash = self.page_hash
        pressed = back.rerun_script.widget_states.widgets.add()
        pressed.id, pressed.trigger_value = self.buttons[label], True
        await self._socket.send(back.SerializeToString())
        return await asyncio.wait_for(self.redirect, timeout)

    def _handle(self, message) -> None:
        if message.WhichOneof("type") == "auth_redirect" and self.redirect is not None:
            self.redirect.set_result(message.auth_redirect.url)
        super()._handle(message)

    def _element(self, element, fragment_id: str) -> None:
        if element.WhichOneof("type") == "button":
            self.buttons[element.button.label] = element.button.id
        super()._element(element, fragment_id)
