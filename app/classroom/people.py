"""Who a signed-in person is, from the claims of their provider's identity token: pure values.

The identity is the provider's issuer and subject (`iss`, `sub`), which the provider never gives
to anyone else, never an e-mail address (a person may change it, and some providers let them
type it). Roles come only from what the provider proves (`Trust`, from the configuration): an
identity named, an e-mail address the provider says is verified (`email_verified` exactly the
boolean true: never a string, never absent), or a claim the provider asserts; the last two only
from the configured issuer (and tenant). Claims are checked first (claims.py).

    >>> trust = Trust(emails=("ada@uni.edu",), issuer="https://id.uni.edu")
    >>> ada = person({"iss": "https://id.uni.edu", "sub": "42", "email": "Ada@uni.edu",
    ...               "email_verified": True}, trust)
    >>> ada.identity, ada.role
    ('https://id.uni.edu 42', 'instructor')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.classroom import claims as checks

LEARNER, INSTRUCTOR = "learner", "instructor"
# LTI 1.3's course (membership) roles that make an instructor: Instructor (and its sub-roles,
# TeachingAssistant among them) and ContentDeveloper. An institution-wide role does not: a
# lecturer enrolled as a student in this course is a learner here.
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
LTI_INSTRUCTORS = (f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}#ContentDeveloper")
GROUP_CLAIMS = ("groups", "section")  # claims whose values put a learner in a group


class NoIdentity(ValueError):
    """The identity token lacks its issuer or its subject."""


@dataclass(frozen=True)
class Person:
    """A signed-in person: who (identity), what to call them, and their role."""

    identity: str  # "<issuer> <subject>": an issuer is a URL, so it holds no space
    name: str
    email: str
    role: str
    groups: tuple[str, ...] = ()  # the provider's groups/section claims, for the dashboard
    verified_email: str = ""  # the e-mail address if the provider says it is verified (true)


@dataclass(frozen=True)
class Trust:
    """What makes an instructor (AppConfig's trust settings): identities named, verified e-mail
    addresses (lower case), a (claim, value); the last two only from `issuer` ("": any, where no
    [auth] names one) and, if set, the tenant (`tid`)."""

    emails: tuple[str, ...] = ()
    identities: tuple[str, ...] = ()
    claim: tuple[str, str] | None = None
    issuer: str = ""
    tenant: str = ""


def person(claims: Mapping, trust: Trust) -> Person:
    """Return the person the claims describe, with the role `trust` gives them; raise NoIdentity
    without issuer or subject, claims.Refused for a claim the app will not keep."""
    issuer, subject = claims.get("iss"), claims.get("sub")
    if not (isinstance(issuer, str) and issuer and isinstance(subject, str) and subject):
        raise NoIdentity("The identity token has no issuer (iss) or subject (sub).")
    shown = checks.shown(claims, (trust.claim[0],) if trust.claim else ())
    identity = f"{issuer} {subject}"
    role = INSTRUCTOR if _instructor(claims, identity, trust) else LEARNER
    email = shown.get("email") if isinstance(shown.get("email"), str) else ""
    email = email.strip().lower()
    name = shown.get("name") if isinstance(shown.get("name"), str) else ""
    verified = email if claims.get("email_verified") is True else ""
    return Person(identity, name.strip() or email or subject, email, role, _groups(shown), verified)


def _instructor(claims: Mapping, identity: str, trust: Trust) -> bool:
    """Return True if trust makes this person an instructor: by identity, by an LTI course role
    (the launch of a registered LMS proves it), or, from the trusted issuer and tenant, by a
    verified e-mail address or the instructors' claim."""
    if identity in trust.identities or lti_instructor(claims):
        return True
    if trust.issuer and claims.get("iss") != trust.issuer:
        return False
    if trust.tenant and claims.get("tid") != trust.tenant:
        return False
    return _verified_email(claims) in trust.emails or _has_claim(claims, trust.claim)


def lti_instructor(claims: Mapping) -> bool:
    """Return True for a person an LMS launched (provider "lti", whose claims only the tool's
    launch writes) with an instructor's role in the course."""
    if claims.get("provider") != "lti":
        return False
    roles = [r for r in claims.get("lti_roles", ()) if isinstance(r, str)]
    return any(r in LTI_INSTRUCTORS or r.startswith(f"{MEMBERSHIP}/Instructor#") for r in roles)


def _groups(claims: Mapping) -> tuple[str, ...]:
    """Return the groups the provider puts the person in (GROUP_CLAIMS: a text or a list)."""
    found: list[str] = []
    for name in GROUP_CLAIMS:
        value = claims.get(name)
        values = value if isinstance(value, list | tuple) else [value]
        found += [v.strip() for v in values if isinstance(v, str) and v.strip()]
    return tuple(dict.fromkeys(found))


def _verified_email(claims: Mapping) -> str | None:
    """Return the e-mail address (lower case) if the provider says it is verified with the
    boolean true, and it is plain ASCII as sent (no look-alike of a listed address); else None."""
    email = claims.get("email")
    if claims.get("email_verified") is not True or not isinstance(email, str):
        return None
    return email.strip().lower() if email.isascii() else None


def _has_claim(claims: Mapping, claim: tuple[str, str] | None) -> bool:
    """Return True if the claim named in the configuration holds its value (or lists it)."""
    if claim is None:
        return False
    name, value = claim
    found = claims.get(name)  # as the provider sent it: exact, never normalised into a match
    if isinstance(found, list | tuple):
        return value in found
    return found == value
