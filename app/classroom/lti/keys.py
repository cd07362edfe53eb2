"""The tool's key pair, from the `[lti]` section of .streamlit/secrets.toml (never in git):
`private_key` (PEM) and `kid`. /lti/jwks publishes its public half, which the platform uses to
check the tool's signed requests (AGS, NRPS); a launch itself needs only the platform's keys.
"""

from __future__ import annotations

import json

import streamlit as st
from jwcrypto.jwk import JWK


def tool_key() -> tuple[str, str] | None:
    """Return (private key PEM, kid) from the secrets, or None when none is configured."""
    try:
        section = st.secrets.get("lti", {})
    except FileNotFoundError:  # no secrets file: the local mode
        return None
    pem, kid = section.get("private_key"), section.get("kid")
    return (pem, kid) if pem and kid else None


def jwks(key: tuple[str, str] | None) -> dict:
    """Return the JSON Web Key Set of the tool's public key (no keys when none is set)."""
    if key is None:
        return {"keys": []}
    pem, kid = key
    public = json.loads(JWK.from_pem(pem.encode()).export_public())
    return {"keys": [public | {"kid": kid, "alg": "RS256", "use": "sig"}]}
