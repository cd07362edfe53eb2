"""Who a signed-in person is, from the claims of their provider's identity token: pure values.

The identity is the provider's issuer and subject (`iss`, `sub`), which the provider never gives
to anyone else, never an e-mail address (a person may change it, and some providers let them
type it). Roles come from the configuration: instructors by e-mail address and/or by a claim.

    >>> ada = person({"iss": "https://id.uni.edu", "sub": "42", "email": "Ada@uni.edu"},
    ...              instructors=("ada@uni.edu",), claim=None)
    >>> ada.identity, ada.role
    ('https://id.uni.edu 42', 'instructor')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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


def person(claims: Mapping, instructors: tuple[str, ...], claim: tuple[str, str] | None) -> Person:
    """Return the person the claims describe, with the role the configuration gives them."""
    issuer, subject = claims.get("iss"), claims.get("sub")
    if not (isinstance(issuer, str) and issuer and isinstance(subject, str) and subject):
        raise NoIdentity("The identity token has no issuer (iss) or subject (sub).")
    email = _email(claims)
    instructor = (email and email in instructors) or _has_claim(claims, claim)
    instructor = instructor or lti_instructor(claims)
    name = claims.get("name") or email or subject
    role = INSTRUCTOR if instructor else LEARNER
    return Person(f"{issuer} {subject}", str(name), email, role, _groups(claims))


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


def _email(claims: Mapping) -> str:
    """Return the e-mail address in the claims, lower case, or '' if the provider says it is
    unverified (`email_verified: false`): nobody gains a role with an address they only typed."""
    email = claims.get("email")
    if not isinstance(email, str) or claims.get("email_verified") in (False, "false"):
        return ""
    return email.strip().lower()


def _has_claim(claims: Mapping, claim: tuple[str, str] | None) -> bool:
    """Return True if the claim named in the configuration holds its value (or lists it)."""
    if claim is None:
        return False
    name, value = claim
    found = claims.get(name)
    if isinstance(found, list | tuple):
        return value in found
    return found == value
