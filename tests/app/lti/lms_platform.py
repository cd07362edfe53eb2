"""A small LTI 1.3 platform of our own, on loopback: its key pair, its key set (JWKS) served over
HTTP, its authorization step (an id_token for the nonce the tool sent), for the tool's tests.
The tool fetches the key set with its library, as it would from Canvas or Moodle."""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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
        self.forger = JWK.generate(kty="RSA", size=2048, kid="platform-1")  # not published
        self.stranger = JWK.generate(kty="RSA", size=2048, kid="platform-9")  # nor this one
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.keys_url, self.login_url = f"{self.url}/jwks", f"{self.url}/authorize"
        self.token_url = f"{self.url}/token"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        published = {"keys": [json.loads(self.key.export_public()) | {"alg": "RS256"}]}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                body = json.dumps(published).encode()
                self.send_response(200 if self.path == "/jwks" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        return Handler

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
