"""The tool's key pair, from the `[lti]` section of .streamlit/secrets.toml (never in git):
`private_key` (PEM) and `kid`, and the public halves of the keys it replaced, kept published
until retired (`previous`: a list of {kid, public_key}). /lti/jwks publishes them all, which
the platform uses to check the tool's signed requests (AGS, NRPS); a platform that cached the
old key set still checks a request signed just before a rotation. A launch itself needs only
the platform's keys.

    >>> keys.tool_key()                       # (pem, kid) of the secrets, or None
    >>> keys.jwks(keys.section())            # {"keys": [current, *previous]}
    >>> keys.rotated(section, new_pem, new_kid), keys.retired(section, kid)   # new sections
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from jwcrypto.jwk import JWK


def section(secrets: Mapping | None = None) -> dict:
    """Return the secrets' `[lti]` section (Streamlit's secrets unless given), {} if none."""
    if secrets is None:
        import streamlit as st

        secrets = st.secrets
    try:
        found = secrets.get("lti") or {}
    except FileNotFoundError:  # no secrets file: the local mode
        return {}
    return _plain(found) if isinstance(found, Mapping) else {}


def _plain(value):
    """Return a section as plain dicts and lists (Streamlit's secrets are read-only mappings)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def tool_key(secrets: Mapping | None = None) -> tuple[str, str] | None:
    """Return (private key PEM, kid) from the secrets, or None when none is configured."""
    found = section(secrets)
    pem, kid = found.get("private_key"), found.get("kid")
    return (pem, kid) if pem and kid else None


def jwks(found: Mapping) -> dict:
    """Return the JSON Web Key Set of an `[lti]` section: the current key's public half, then
    each previous key not retired yet (no keys when none is set)."""
    published = []
    if found.get("private_key") and found.get("kid"):
        published.append(_public(found["private_key"], found["kid"]))
    for old in found.get("previous") or []:
        published.append(_public(old["public_key"], old["kid"]))
    return {"keys": published}


def _public(pem: str, kid: str) -> dict:
    public = json.loads(JWK.from_pem(pem.encode()).export_public())
    return public | {"kid": kid, "alg": "RS256", "use": "sig"}


def rotated(found: Mapping, pem: str, kid: str) -> dict:
    """Return the section after a rotation: the new key current, the replaced key's public
    half first of the previous ones (still published until retired)."""
    previous = list(found.get("previous") or [])
    if found.get("private_key") and found.get("kid"):
        public = JWK.from_pem(found["private_key"].encode()).export_to_pem().decode()
        previous.insert(0, {"kid": found["kid"], "public_key": public})
    return {"kid": kid, "private_key": pem} | ({"previous": previous} if previous else {})


def retired(found: Mapping, kid: str) -> dict:
    """Return the section without the previous key `kid` (no longer published); ValueError
    for the current key or a kid the section does not hold."""
    if kid == found.get("kid"):
        raise ValueError(f"{kid} is the current key: make a new one (new-key) first.")
    previous = list(found.get("previous") or [])
    kept = [old for old in previous if old.get("kid") != kid]
    if len(kept) == len(previous):
        raise ValueError(f"No previous key {kid} in the [lti] section.")
    return {k: v for k, v in found.items() if k != "previous"} | (
        {"previous": kept} if kept else {}
    )


def toml(found: Mapping) -> str:
    """Return an `[lti]` section as the secrets file's TOML text."""
    lines = ["[lti]", f'kid = "{found["kid"]}"', f'private_key = """\n{found["private_key"]}"""']
    for old in found.get("previous") or []:
        lines += ["", "[[lti.previous]]", f'kid = "{old["kid"]}"']
        lines.append(f'public_key = """\n{old["public_key"]}"""')
    return "\n".join(lines) + "\n"
