"""What a validated launch says, as plain values: the person (the platform's issuer and subject,
as the classroom's OIDC identity; name, e-mail, LTI roles) in the claims Streamlit keeps in its
signed user cookie, so that st.user, the classroom's door and the dashboard read it as they read
an OIDC sign-in (app/classroom/people.py gives an LTI instructor role its rights), and the
sign-in's `iat` and `nonce`, which name its row of kept sign-ins (app/classroom/sessions.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from app.storage.lti import Link

LTI = "lti"  # the provider a launch signs in with (st.user's `provider`)
ROLES = "https://purl.imsglobal.org/spec/lti/claim/roles"
CONTEXT = "https://purl.imsglobal.org/spec/lti/claim/context"
LINK = "https://purl.imsglobal.org/spec/lti/claim/resource_link"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
LIS = "https://purl.imsglobal.org/spec/lti/claim/lis"


def sis_of(launch: Mapping) -> str:
    """Return the launched person's SIS id (the LIS claim's person_sourcedid), "" if none."""
    lis = launch.get(LIS)
    found = lis.get("person_sourcedid") if isinstance(lis, Mapping) else None
    return found.strip() if isinstance(found, str) else ""


def link_of(launch: Mapping) -> Link | None:
    """Return where the launched person's scores go (the launch's link and its line items'
    URL), or None when the LMS offers no grade service for it."""
    endpoint, link = launch.get(AGS) or {}, launch.get(LINK) or {}
    lineitems, link_id = endpoint.get("lineitems"), link.get("id")
    if not (isinstance(lineitems, str) and isinstance(link_id, str)):
        return None
    identity = f"{launch['iss']} {launch['sub']}"
    audience = launch["aud"][0] if isinstance(launch["aud"], list) else launch["aud"]
    return Link(identity, link_id, launch["iss"], audience, launch["sub"], lineitems)


def user_claims(launch: Mapping, origin: str) -> dict:
    """Return the claims of Streamlit's user cookie for a validated launch's data."""
    email = launch.get("email") if isinstance(launch.get("email"), str) else ""
    name = launch.get("name") or " ".join(
        str(launch[k]) for k in ("given_name", "family_name") if launch.get(k)
    )
    roles = [r for r in launch.get(ROLES, ()) if isinstance(r, str)]
    context = launch.get(CONTEXT) or {}
    return {
        "iss": launch["iss"],
        "sub": launch["sub"],
        "iat": launch["iat"],  # with the nonce, names this sign-in's row (sessions.py)
        "nonce": launch["nonce"],
        "name": name or email or launch["sub"],
        "email": email,
        "lti_roles": roles,
        "section": context.get("title", "") if isinstance(context, Mapping) else "",
        "provider": LTI,
        "origin": origin,
        "is_logged_in": True,
    }
