"""LTI 1.3's rows (a part of the store: `store.lti`): the platforms registered to launch the tool,
and each launch's state, nonce and data with an expiry. A nonce is consumed once: the second
launch that carries it finds nothing and is refused (a replayed launch), whichever replica it
reaches. The tool's adapters (app/classroom/lti/) read and write these; nothing here knows
LTI's rules.

    >>> store.lti.add(Registration("https://lms.uni.edu", "tool-7", login, token, keys, ("d1",)))
    >>> store.lti.put("nonce-abc", True, lifetime=3600)
    >>> store.lti.consume("nonce-abc"), store.lti.consume("nonce-abc")
    (True, False)
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from app.storage.engine import Part

UPSERT_REGISTRATION = """
INSERT INTO lti_registrations (issuer, client_id, login_url, token_url, keys_url, deployments)
VALUES (:issuer, :client_id, :login_url, :token_url, :keys_url, :deployments)
ON CONFLICT (issuer, client_id) DO UPDATE SET login_url = excluded.login_url,
    token_url = excluded.token_url, keys_url = excluded.keys_url,
    deployments = excluded.deployments
"""
PUT = """
INSERT INTO lti_state (key, value, expires_at) VALUES (:key, :value, :until)
ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
"""


LINK = """
INSERT INTO lti_links (identity, resource_link, issuer, client_id, user_id, lineitems, updated_at)
VALUES (:identity, :resource_link, :issuer, :client_id, :user_id, :lineitems, :at)
ON CONFLICT (identity, resource_link) DO UPDATE SET issuer = excluded.issuer,
    client_id = excluded.client_id, user_id = excluded.user_id, lineitems = excluded.lineitems,
    updated_at = excluded.updated_at
"""
PUSHED = (
    "INSERT INTO lti_pushes (identity, item, points, out_of, at, status, answer)"
    " VALUES (:identity, :item, :points, :out_of, :at, :status, :answer)"
)


@dataclass(frozen=True)
class Link:
    """Where a launched person's scores go: the LMS's link they came from, who they are there
    (user_id) and its line items' URL (AGS)."""

    identity: str
    resource_link: str
    issuer: str
    client_id: str
    user_id: str
    lineitems: str


@dataclass(frozen=True)
class Pushed:
    """One score sent: whose, which item, its points out of what, when, and the LMS's answer
    (its HTTP status, 0 when not reached; its reason when it refused)."""

    identity: str
    item: str
    points: float
    out_of: float
    at: float
    status: int
    answer: str = ""

    @property
    def ok(self) -> bool:
        """Return whether the LMS took the score."""
        return 200 <= self.status < 300


@dataclass(frozen=True)
class Registration:
    """A platform allowed to launch the tool: its issuer, the tool's client id there, its
    login (OIDC authorization), token and key set (JWKS) addresses, and the deployment ids."""

    issuer: str
    client_id: str
    login_url: str
    token_url: str
    keys_url: str
    deployments: tuple[str, ...] = ()


class Lti(Part):
    """The store's LTI calls: registrations, and state kept until it expires or is consumed."""

    def add(self, registration: Registration) -> None:
        """Add a platform's registration, or replace the one of its issuer and client id."""
        row = vars(registration) | {"deployments": json.dumps(list(registration.deployments))}
        with self._db() as db:
            db.execute(UPSERT_REGISTRATION, row)

    def registrations(self) -> list[Registration]:
        """Return every registration, by issuer then client id."""
        with self._db() as db:
            rows = db.execute(
                "SELECT issuer, client_id, login_url, token_url, keys_url, deployments"
                " FROM lti_registrations ORDER BY issuer, client_id"
            ).fetchall()
        return [Registration(*r[:5], tuple(json.loads(r[5]))) for r in rows]

    def link(self, link: Link) -> None:
        """Keep where a launched person's scores go (the latest launch from a link wins)."""
        with self._db() as db:
            db.execute(LINK, vars(link) | {"at": time.time()})

    def links(self, identity: str) -> list[Link]:
        """Return the links a person launched from, by resource link."""
        with self._db() as db:
            rows = db.execute(
                "SELECT identity, resource_link, issuer, client_id, user_id, lineitems"
                " FROM lti_links WHERE identity = :who ORDER BY resource_link",
                {"who": identity},
            ).fetchall()
        return [Link(*r) for r in rows]

    def record(self, pushed: list[Pushed]) -> None:
        """Record scores sent, with the LMS's answers."""
        if pushed:
            with self._db() as db:
                db.executemany(PUSHED, [vars(p) for p in pushed])

    def pushes(self, limit: int = 500) -> list[Pushed]:
        """Return the latest scores sent, newest first."""
        with self._db() as db:
            rows = db.execute(
                "SELECT identity, item, points, out_of, at, status, answer FROM lti_pushes"
                " ORDER BY id DESC LIMIT :n",
                {"n": limit},
            ).fetchall()
        return [Pushed(*r) for r in rows]

    def last_push(self, identity: str, item: str) -> Pushed | None:
        """Return the latest score sent of a person's item, or None if none was."""
        with self._db() as db:
            row = db.execute(
                "SELECT identity, item, points, out_of, at, status, answer FROM lti_pushes"
                " WHERE identity = :who AND item = :item ORDER BY id DESC LIMIT 1",
                {"who": identity, "item": item},
            ).first()
        return None if row is None else Pushed(*row)

    def enrol(self, owner: str, name: str, email: str, role: str) -> bool:
        """Note a person an LMS's roster lists, never seen here (last seen: never); a person
        already known keeps their row. Return whether they were new."""
        with self._db() as db:
            added = db.execute(
                "INSERT INTO people (owner, name, email, groups, role, last_seen)"
                " VALUES (:owner, :name, :email, '[]', :role, 0)"
                " ON CONFLICT (owner) DO NOTHING",
                {"owner": owner, "name": name, "email": email, "role": role},
            )
        return added.rowcount == 1

    def put(self, key: str, value: object, lifetime: float) -> None:
        """Keep a value (JSON) under key for lifetime seconds; drop what has expired."""
        now = time.time()
        with self._db() as db:
            db.execute("DELETE FROM lti_state WHERE expires_at <= :now", {"now": now})
            db.execute(PUT, {"key": key, "value": json.dumps(value), "until": now + lifetime})

    def get(self, key: str) -> object | None:
        """Return the value kept under key, or None when there is none or it expired."""
        with self._db() as db:
            row = db.execute(
                "SELECT value FROM lti_state WHERE key = :key AND expires_at > :now",
                {"key": key, "now": time.time()},
            ).first()
        return None if row is None else json.loads(row[0])

    def consume(self, key: str) -> bool:
        """Remove the value under key; return whether it was there (unexpired): true once."""
        with self._db() as db:
            gone = db.execute(
                "DELETE FROM lti_state WHERE key = :key AND expires_at > :now",
                {"key": key, "now": time.time()},
            )
        return gone.rowcount == 1
