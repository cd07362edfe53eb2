"""Who is at this browser, in the local mode: an identity kept in a signed cookie.

On a first visit the server draws a random identity and the page stores it in the cookie
`ninja_learner`, as `<identity>.<HMAC-SHA256 of it>` under a secret drawn once and kept in the
data directory (`identity.key`, mode 0600). Every later visit sends the cookie with its first
request; a cookie whose signature does not match is refused, not trusted, and the browser gets a
new identity. Profiles belong to an identity (app/storage/profiles.py), so two browsers on one
machine never see or switch each other's work. The cookie is set by a script on the page: no
request.

    >>> secret = b"k" * 32
    >>> verify(sign("3f2a", secret), secret)
    '3f2a'
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

import streamlit as st

from app.config import private

COOKIE = "ninja_learner"
KEY_FILE = "identity.key"
SESSION_KEY = "identity"
UNSAVED_KEY = "identity:unsaved"
# What sign() makes: a hex identity (token_hex(16) draws 32 digits), a dot, a hex HMAC-SHA256.
FORMAT = re.compile(r"[0-9a-f]{1,64}\.[0-9a-f]{64}")
MAX_AGE = 400 * 24 * 3600  # the longest a browser keeps a cookie (Chromium caps it at 400 days)


def current(key: bytes) -> str:
    """Return this browser's identity: the one its cookie proves (signed with `key`, the
    installation's secret), else a new one to save."""
    known = st.session_state.get(SESSION_KEY)
    if known is None:
        known = verify(browser_cookie(), key)
        if known is None:
            known = secrets.token_hex(16)
            st.session_state[UNSAVED_KEY] = sign(known, key)
        st.session_state[SESSION_KEY] = known
    return known


def save_cookie() -> None:
    """Store a new identity's signed cookie in this browser (a script on the page)."""
    value = st.session_state.get(UNSAVED_KEY)
    if value is None:
        return
    script = (
        f"<script>document.cookie = '{COOKIE}={value}; path=/; max-age={MAX_AGE};"
        " samesite=strict';</script>"
    )
    with st.sidebar:
        st.html(script, unsafe_allow_javascript=True, width="content")


def browser_cookie() -> str | None:
    """Return the identity cookie this browser sent when the session opened, if any."""
    return st.context.cookies.get(COOKIE)


def sign(identity: str, key: bytes) -> str:
    """Return the cookie value for identity: itself, a dot, and its signature."""
    return f"{identity}.{_mac(identity, key)}"


def verify(cookie: str | None, key: bytes) -> str | None:
    """Return the identity a cookie carries if it is in this module's own format (FORMAT) and
    its signature is right, else None: anything else (non-ASCII, too long, not hex) is never
    parsed further, and the browser gets a new identity."""
    if not isinstance(cookie, str) or FORMAT.fullmatch(cookie) is None:
        return None
    identity, _, mac = cookie.partition(".")
    if not hmac.compare_digest(mac, _mac(identity, key)):
        return None
    return identity


def _mac(identity: str, key: bytes) -> str:
    return hmac.new(key, identity.encode(), hashlib.sha256).hexdigest()


def load_secret(path: Path) -> bytes:
    """Return the secret kept at path, drawing it first if there is none (readable by us only).

    A new secret is written beside path and linked into place, so that two processes starting
    at once agree on one secret and neither reads a half-written file.
    """
    if not path.exists():
        private.folder(path.parent)
        draft = path.with_name(f"{path.name}.{secrets.token_hex(4)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32))
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process won; its secret is the one
        finally:
            draft.unlink()
    os.chmod(path, 0o600)
    return bytes.fromhex(path.read_text().strip())
