"""Sign-ins kept on the server: a row per sign-in, checked on every run of a page.

Streamlit keeps a signed-in person in its own signed cookie, valid for 30 days, and its sign-out
only asks the browser to drop it: a copy (a shared lab computer, a proxy's log) would still admit
the person. So each sign-in is also a row of `sessions`, and a page admits a cookie only while
its row lives: not signed out, not ended by an instructor, used within the idle lifetime and
younger than the absolute one (`NINJA_SESSION_IDLE`, `NINJA_SESSION_ABSOLUTE`).

A row is named by the sign-in itself, from what Streamlit keeps in its cookie and cannot be
changed without the cookie secret: the identity token's issuer, subject, `iat` (when the
provider issued it) and `nonce` (drawn afresh by Authlib for every sign-in), and `sid` where the
provider sends one. A row is written the first time a page sees its sign-in (the browser comes
straight from the provider), issued at the token's `iat`; an instructor's "end" also ends any
sign-in of that person issued before it, seen or not.

    >>> sessions = Sessions(store)
    >>> sessions.check(Seen("9f…", "https://id.uni.edu 42", issued=t), now=t, limits=(7200, 43200))
    Verdict(live=True, reason='')
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass

from app.storage import Db, Part

SIGNED_OUT, ENDED, IDLE, EXPIRED = "signed_out", "ended", "idle", "expired"
TOUCH_EVERY = 60.0  # seconds: how stale `last_seen` may grow before a page writes it again


class NoSignIn(ValueError):
    """The token names no moment of sign-in (`iat`), so no row can be kept for it."""


@dataclass(frozen=True)
class Seen:
    """A sign-in as a page sees it: its id, whose it is, when the provider issued it."""

    id: str
    owner: str
    issued: float


@dataclass(frozen=True)
class Verdict:
    """Whether a sign-in still admits its cookie, and if not why (SIGNED_OUT, ENDED, ...)."""

    live: bool
    reason: str = ""


@dataclass(frozen=True)
class Live:
    """A live sign-in, for the dashboard: whose (and their name), when issued and last seen."""

    id: str
    owner: str
    issued: float
    last_seen: float
    name: str = ""


def seen(claims: Mapping, owner: str, now: float | None = None) -> Seen:
    """Return the sign-in the claims come from; raise NoSignIn without a numeric `iat`."""
    iat = claims.get("iat")
    if isinstance(iat, bool) or not isinstance(iat, int | float):
        raise NoSignIn("The identity token does not say when it was issued (iat).")
    parts = (owner, str(iat), str(claims.get("nonce", "")), str(claims.get("sid", "")))
    digest = hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    now = time.time() if now is None else now
    return Seen(digest, owner, min(float(iat), now))


class Sessions(Part):
    """The store's calls for sign-ins: check one, sign it out, end a person's, list the live."""

    def check(self, sign_in: Seen, now: float, limits: tuple[float, float]) -> Verdict:
        """Return whether the sign-in admits its cookie now (limits: idle, absolute seconds),
        recording it when first seen and ending it when a lifetime has run out."""
        idle, absolute = limits
        with self._db() as db:
            row = _row(db, sign_in.id) or _first(db, sign_in, now)
            issued, last_seen, revoked, reason = row
            if revoked is not None:
                return Verdict(False, reason)
            ended = EXPIRED if now - issued > absolute else IDLE if now - last_seen > idle else ""
            if ended:
                _revoke(db, "id = :id", {"id": sign_in.id}, ended, now)
                return Verdict(False, ended)
            if now - last_seen > TOUCH_EVERY:
                db.execute(
                    "UPDATE sessions SET last_seen = :now WHERE id = :id",
                    {"now": now, "id": sign_in.id},
                )
        return Verdict(True)

    def sign_out(self, sign_in: Seen, now: float) -> None:
        """End one sign-in: its cookie admits nobody from now on, on every replica."""
        with self._db() as db:
            _row(db, sign_in.id) or _first(db, sign_in, now)
            _revoke(db, "id = :id", {"id": sign_in.id}, SIGNED_OUT, now)

    def end(self, owner: str, now: float) -> int:
        """End every sign-in of a person (an instructor's decision), and any issued before now
        that a page has not seen yet; return how many live ones ended."""
        with self._db() as db:
            ended = _revoke(db, "owner = :owner", {"owner": owner}, ENDED, now)
            marker = Seen(f"{ENDED}:{now!r}:{owner}", owner, now)  # for sign-ins not seen yet
            _first(db, marker, now)
            _revoke(db, "id = :id", {"id": marker.id}, ENDED, now)
        return ended

    def live(self, now: float, limits: tuple[float, float]) -> list[Live]:
        """Return the sign-ins that still admit their cookies, newest first."""
        idle, absolute = limits
        with self._db() as db:
            rows = db.execute(
                "SELECT s.id, s.owner, s.issued, s.last_seen, COALESCE(p.name, '')"
                " FROM sessions s LEFT JOIN people p ON p.owner = s.owner"
                " WHERE s.revoked IS NULL AND s.issued >= :born AND s.last_seen >= :used"
                " ORDER BY s.issued DESC",
                {"born": now - absolute, "used": now - idle},
            ).fetchall()
        return [Live(*r) for r in rows]


def _row(db: Db, sign_in_id: str) -> tuple | None:
    row = db.execute(
        "SELECT issued, last_seen, revoked, reason FROM sessions WHERE id = :id",
        {"id": sign_in_id},
    ).fetchone()
    return None if row is None else tuple(row)


def _first(db: Db, sign_in: Seen, now: float) -> tuple:
    """Record a sign-in seen for the first time; ended at once if an instructor ended its
    person's sign-ins after it was issued."""
    ended = db.execute(
        "SELECT MAX(revoked) FROM sessions WHERE owner = :owner AND reason = :ended",
        {"owner": sign_in.owner, "ended": ENDED},
    ).scalar()
    revoked = ended if ended is not None and ended >= sign_in.issued else None
    db.execute(
        "INSERT INTO sessions (id, owner, issued, last_seen, revoked, reason)"
        " VALUES (:id, :owner, :issued, :now, :revoked, :reason) ON CONFLICT (id) DO NOTHING",
        {"id": sign_in.id, "owner": sign_in.owner, "issued": sign_in.issued, "now": now}
        | {"revoked": revoked, "reason": ENDED if revoked is not None else ""},
    )
    return _row(db, sign_in.id)


def _revoke(db: Db, where: str, args: dict, reason: str, now: float) -> int:
    """End the live sign-ins `where` selects; return how many."""
    return db.execute(
        f"UPDATE sessions SET revoked = :now, reason = :reason WHERE {where} AND revoked IS NULL",
        {**args, "now": now, "reason": reason},
    ).rowcount
