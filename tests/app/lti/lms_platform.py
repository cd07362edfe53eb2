"""A small LTI 1.3 platform of our own, on loopback: its key pair, its key set (JWKS) served over
HTTP, its authorization step (an id_token for the nonce the tool sent), and its grade services:
a token endpoint (the tool's signed client assertion checked against the tool's public key),
line items and scores, kept in memory. The tool reaches them with its library, as it would
Canvas or Moodle. `refuse_scores = (404, "not a student")` makes the scores endpoint refuse."""

from __future__ import annotations

import functools
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt
from jwcrypto.jwk import JWK

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
LEARNER, INSTRUCTOR = f"{MEMBERSHIP}#Learner", f"{MEMBERSHIP}#Instructor"
ISSUER, CLIENT, DEPLOYMENT = "https://lms.uni.test", "ninja-tool", "deployment-1"


class Platform:
    """The platform: a key (kid "platform-1"), its JWKS at keys_url, id_tokens on demand."""

    def __init__(self):
        self.key = JWK.generate(kty="RSA", size=2048, kid="platform-1")
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.keys_url, self.login_url = f"{self.url}/jwks", f"{self.url}/authorize"
        self.token_url = f"{self.url}/token"
        self.lineitems_url = f"{self.url}/lineitems"
        self.tool_key: JWK | None = None  # the tool's public key, given at registration
        self.lineitems: list[dict] = []
        self.scores: dict[str, list[dict]] = {}  # by line item id
        self.refuse_scores: tuple[int, str] | None = None
        self.memberships_url = f"{self.url}/memberships"
        self.members = [
            {"user_id": "user-42", "name": "Ada Lovelace", "email": "ada@uni.test",
             "roles": [LEARNER], "status": "Active", "lis_person_sourcedid": "S-42"},
            {"user_id": "user-43", "name": "Bob Never", "email": "Bob@uni.test",
             "roles": ["Learner"], "status": "Active", "lis_person_sourcedid": "S-43"},
            {"user_id": "user-44", "name": "Cy Gone", "roles": ["Learner"], "status": "Inactive"},
            {"user_id": "teacher-1", "name": "Ivy", "roles": [INSTRUCTOR], "status": "Active"},
        ]  # fmt: skip
        self.refusals_left = -1  # how many scores to refuse (-1: every one while refusing)
        self.stall_scores = 0.0  # seconds the scores endpoint waits before it answers
        self.score_posts = 0  # scores asked to be put, taken or not

    @functools.cached_property
    def forger(self) -> JWK:
        """Return a key of the platform's kid that it never published."""
        return JWK.generate(kty="RSA", size=2048, kid="platform-1")

    @functools.cached_property
    def stranger(self) -> JWK:
        """Return a key of a kid the platform never published."""
        return JWK.generate(kty="RSA", size=2048, kid="platform-9")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                self._answer(*platform.get(self.path, self.headers))

            def do_POST(self):  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self._answer(*platform.post(self.path, self.headers, raw.decode()))

            def _answer(self, status: int, body: object):
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(status)
                html = isinstance(body, str) and body.startswith("<html>")
                self.send_header("Content-Type", "text/html" if html else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        return Handler

    def get(self, path: str, headers) -> tuple[int, object]:
        """Answer a GET: the key set, its authorization (a page that posts the launch), or
        (with a token) the line items and the roster."""
        if path.startswith("/authorize?"):
            return 200, self.authorize({k: v[0] for k, v in parse_qs(path[11:]).items()})
        if path == "/jwks":
            return 200, {"keys": [json.loads(self.key.export_public()) | {"alg": "RS256"}]}
        if path.startswith("/lineitems") and self._authorized(headers):
            return 200, self.lineitems
        if path == "/memberships" and self._authorized(headers):
            return 200, {"id": self.memberships_url, "members": self.members}
        return 401, "unauthorized"

    def authorize(self, asked: dict) -> str:
        """Return the page a browser gets at the authorization: a form that posts the launch
        (an id_token for the tool's nonce, its state) to the tool's redirect_uri at once. The
        person is the login hint: a member of the roster, an instructor by their roles."""
        member = next(m for m in self.members if m["user_id"] == asked["login_hint"])
        changes = {"sub": member["user_id"], "name": member["name"]}
        changes["email"] = member.get("email")
        token = self.id_token(asked["nonce"], role=member["roles"][0], **changes)
        fields = {"id_token": token, "state": asked["state"]}
        inputs = "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in fields.items())
        return (
            f'<html><body><form method="post" action="{asked["redirect_uri"]}">{inputs}</form>'
            "<script>document.forms[0].submit()</script></body></html>"
        )

    def post(self, path: str, headers, body: str) -> tuple[int, object]:
        """Answer a POST: a token for a signed client assertion, a new line item, a score."""
        if path == "/token":
            return self._token(parse_qs(body))
        if not self._authorized(headers):
            return 401, "unauthorized"
        if path == "/lineitems":
            item = json.loads(body) | {"id": f"{self.lineitems_url}/{len(self.lineitems) + 1}"}
            self.lineitems.append(item)
            return 201, item
        if path.startswith("/lineitems/") and path.endswith("/scores"):
            self.score_posts += 1
            time.sleep(self.stall_scores)
            if self.refuse_scores and self.refusals_left != 0:
                self.refusals_left -= 1
                return self.refuse_scores
            self.scores.setdefault(f"{self.url}{path[: -len('/scores')]}", []).append(
                json.loads(body)
            )
            return 200, {}
        return 404, "no such endpoint"

    def _token(self, form: dict) -> tuple[int, object]:
        """Return an access token for a client assertion signed with the tool's key."""
        assertion = form.get("client_assertion", [""])[0]
        try:
            public = self.tool_key.export_to_pem()
            jwt.decode(assertion, public, algorithms=["RS256"], audience=self.token_url)
        except (jwt.InvalidTokenError, AttributeError):
            return 401, {"error": "invalid_client"}
        return 200, {"access_token": "token-1", "token_type": "Bearer", "expires_in": 3600}

    def _authorized(self, headers) -> bool:
        return headers.get("Authorization") == "Bearer token-1"

    def id_token(self, nonce: str, role: str = LEARNER, sign_with=None, **changes) -> str:
        """Return an id_token of a resource link launch for nonce, signed with the platform's
        key (or sign_with), its claims changed by changes (None removes one)."""
        now = int(time.time())
        claims = {
            "iss": ISSUER, "aud": CLIENT, "sub": "user-42", "iat": now, "exp": now + 300,
            "nonce": nonce, "name": "Ada Lovelace", "email": "ada@uni.test",
            f"{CLAIM}deployment_id": DEPLOYMENT,
            f"{CLAIM}message_type": "LtiResourceLinkRequest",
            f"{CLAIM}version": "1.3.0",
            f"{CLAIM}roles": [role],
            f"{CLAIM}resource_link": {"id": "link-1", "title": "Backprop Ninja"},
            f"{CLAIM}target_link_uri": "http://testserver/lti/launch",
            f"{CLAIM}context": {"id": "course-7", "title": "Deep Learning 101"},
            "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
                "context_memberships_url": self.memberships_url,
                "service_versions": ["2.0"],
            },
            "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                "lineitems": self.lineitems_url,
                "scope": [
                    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
                    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
                ],
            },
        }  # fmt: skip
        claims |= changes
        claims = {k: v for k, v in claims.items() if v is not None}
        key = sign_with or self.key
        pem = key.export_to_pem(private_key=True, password=None)
        return jwt.encode(claims, pem, algorithm="RS256", headers={"kid": key.kid})

    def registration(self):
        """Return the tool's registration of this platform."""
        from app.storage.lti import Registration

        return Registration(
            ISSUER, CLIENT, self.login_url, self.token_url, self.keys_url, (DEPLOYMENT,)
        )

    def login_params(self) -> dict:
        """Return what the platform sends to start a launch (/lti/login)."""
        return {
            "iss": ISSUER, "client_id": CLIENT, "login_hint": "user-42",
            "lti_message_hint": str(uuid.uuid4()), "lti_deployment_id": DEPLOYMENT,
            "target_link_uri": "http://testserver/lti/launch",
        }  # fmt: skip


def login(tool, platform: Platform) -> dict:
    """Start a launch at the tool (a Starlette TestClient of its routes); return the query the
    tool sent to the platform's authorization."""
    started = tool.get("/lti/login", params=platform.login_params(), follow_redirects=False)
    assert started.status_code == 302, started.text
    assert started.headers["location"].startswith(platform.login_url)
    return {k: v[0] for k, v in parse_qs(urlsplit(started.headers["location"]).query).items()}


def launch(tool, state: str, token: str):
    """Post a launch (its id_token and state) to the tool; return its response."""
    form = {"id_token": token, "state": state}
    return tool.post("/lti/launch", data=form, follow_redirects=False)


def user_of(response) -> dict:
    """Return the claims of Streamlit's user cookie that a launch set."""
    from streamlit.web.server.server_util import get_cookie_secret
    from streamlit.web.server.starlette.starlette_app_utils import decode_signed_value

    value = response.cookies["_streamlit_user"].encode("latin-1")
    return json.loads(decode_signed_value(get_cookie_secret(), "_streamlit_user", value))
