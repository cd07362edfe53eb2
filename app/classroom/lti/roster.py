"""The LMS's roster (LTI Names and Role Provisioning Services), read through the maintained
library on an instructor's launch and on demand (the dashboard's "Read the roster", the CLI's
`roster`): every active member becomes a person of the class with a profile, so the dashboard
lists (and the gradebook carries) learners who never opened the tool, and each member's SIS id
(`lis_person_sourcedid`) is kept for the books an LMS imports. A person already known keeps
what their own sign-in said. An instructor's launch keeps its roster's address, which is what
makes it readable again later.

    >>> added = read(store, registration, key, memberships_url)   # how many were new
    >>> done = read_all(store, key)      # every roster kept: [Read(roster, added, error)]
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import requests
from pylti1p3.exception import LtiException
from pylti1p3.names_roles import NamesRolesProvisioningService

from app.classroom.lti.grades import connector
from app.classroom.people import INSTRUCTOR, LEARNER, LTI_INSTRUCTORS, MEMBERSHIP
from app.storage import Part
from app.storage.lti import Registration

if TYPE_CHECKING:
    from app.storage import Store

ROSTER = """
INSERT INTO lti_rosters (url, issuer, client_id, title, updated_at)
VALUES (:url, :issuer, :client_id, :title, :at)
ON CONFLICT (url) DO UPDATE SET issuer = excluded.issuer, client_id = excluded.client_id,
    title = excluded.title, updated_at = excluded.updated_at
"""
SIS = """
INSERT INTO lti_members (owner, sis_id) VALUES (:owner, :sis)
ON CONFLICT (owner) DO UPDATE SET sis_id = excluded.sis_id
"""


@dataclass(frozen=True)
class Roster:
    """An LMS course's roster (NRPS): its memberships URL, the platform and client id whose
    token reads it, and the course's title."""

    url: str
    issuer: str
    client_id: str
    title: str = ""


class Rosters(Part):
    """The store's calls for rosters: the address of each course's roster, kept to read it
    again on demand, and each member's SIS id."""

    def keep(self, roster: Roster) -> None:
        """Keep a course's roster address (an instructor's launch offered it), to read it
        again on demand."""
        with self._db() as db:
            db.execute(ROSTER, vars(roster) | {"at": time.time()})

    def rosters(self) -> list[Roster]:
        """Return every roster kept, by URL."""
        with self._db() as db:
            rows = db.execute(
                "SELECT url, issuer, client_id, title FROM lti_rosters ORDER BY url"
            ).fetchall()
        return [Roster(*r) for r in rows]

    def note_sis(self, owner: str, sis_id: str) -> None:
        """Keep a person's SIS id, as their LMS says it (a new one replaces the old)."""
        with self._db() as db:
            db.execute(SIS, {"owner": owner, "sis": sis_id})

    def sis_ids(self) -> dict[str, str]:
        """Return {owner: SIS id} of everyone whose LMS said theirs."""
        with self._db() as db:
            rows = db.execute("SELECT owner, sis_id FROM lti_members").fetchall()
        return dict(rows)


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
        sis = str(member.get("lis_person_sourcedid") or "").strip()
        if sis:
            Rosters(store).note_sis(owner, sis)
        if role == LEARNER and not store.learners.profiles(owner):
            store.learners.add_profile(FIRST_PROFILE, owner)
    return added


@dataclass(frozen=True)
class Read:
    """One roster read on demand: how many people were new, or why it could not be read."""

    roster: Roster
    added: int = 0
    error: str = ""


def read_all(store: Store, key: tuple[str, str]) -> list[Read]:
    """Read now every roster an instructor's launch offered; say, per roster, how many people
    were new or why it could not be read (the LMS's words)."""
    registered = {(r.issuer, r.client_id): r for r in store.lti.registrations()}
    done = []
    for roster in Rosters(store).rosters():
        registration = registered.get((roster.issuer, roster.client_id))
        if registration is None:
            done.append(Read(roster, error="its LMS is no longer registered"))
            continue
        try:
            done.append(Read(roster, read(store, registration, key, roster.url)))
        except (LtiException, requests.RequestException) as err:
            done.append(Read(roster, error=str(err)[:500]))
    return done
