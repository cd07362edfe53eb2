"""The LMS's roster (LTI Names and Role Provisioning Services), read through the maintained
library on an instructor's launch: every active member becomes a person of the class with a
profile, so the dashboard lists (and the gradebook carries) learners who never opened the tool.
A person already known keeps what their own sign-in said.

    >>> added = read(store, registration, key, memberships_url)   # how many were new
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pylti1p3.names_roles import NamesRolesProvisioningService

from app.classroom.lti.grades import connector
from app.classroom.people import INSTRUCTOR, LEARNER, LTI_INSTRUCTORS, MEMBERSHIP
from app.storage.lti import Registration

if TYPE_CHECKING:
    from app.storage import Store

NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
FIRST_PROFILE = "learner"  # the name a classroom profile is made with (app/session.py)


def memberships_url(launch: dict) -> str | None:
    """Return the launch's roster address, or None when the LMS offers no roster service."""
    url = (launch.get(NRPS) or {}).get("context_memberships_url")
    return url if isinstance(url, str) and url else None


def role_of(roles: list) -> str:
    """Return a member's role here from their course roles (short or full names)."""
    full = [r if "#" in r or "/" in r else f"{MEMBERSHIP}#{r}" for r in roles if isinstance(r, str)]
    teaches = any(r in LTI_INSTRUCTORS or r.startswith(f"{MEMBERSHIP}/Instructor#") for r in full)
    return INSTRUCTOR if teaches else LEARNER


def read(store: Store, registration: Registration, key: tuple[str, str], url: str) -> int:
    """Read the roster at url; note every active member and give each learner a profile;
    return how many people were new."""
    service = NamesRolesProvisioningService(
        connector(registration, key), {"context_memberships_url": url, "service_versions": ["2.0"]}
    )
    added = 0
    for member in service.get_members():
        if member.get("status", "Active") != "Active" or not member.get("user_id"):
            continue
        owner = f"{registration.issuer} {member['user_id']}"
        email = str(member.get("email") or "").strip().lower()
        name = str(member.get("name") or email or member["user_id"])
        role = role_of(member.get("roles", []))
        added += store.lti.enrol(owner, name, email, role)
        if role == LEARNER and not store.learners.profiles(owner):
            store.learners.add_profile(FIRST_PROFILE, owner)
    return added
