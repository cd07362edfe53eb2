"""The audit log: each instructor action that reads or changes learners' data, with who did it,
when, and what (a part of the store: `store.audit`; the table `audit_log`).

    >>> ivy = Actor("https://id.uni.edu 7", "Ivy")
    >>> store.audit.record(ivy, EXPORT, "https://id.uni.edu 42", {"profiles": [3]})
    >>> store.audit.entries()                    # this course's and the class-wide, newest first

An entry names its learner by identity (the profile's owner), or CLASS for an action on the
whole class (a gradebook). Entries stay when a learner is deleted: who deleted whom is what the
log is for. A learner's export (privacy.py) carries the entries about them and the class-wide
ones. Who records what: docs/operations.md, "The audit log".
"""

from __future__ import annotations

import json
import os
import pwd
import socket
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.storage.engine import Db, Part

if TYPE_CHECKING:
    from sqlalchemy import Row

EXPORT, DELETE, REGRADE, GRADEBOOK, ROLE, VIEW = (
    "export",  # a learner's data exported (python -m app.storage export)
    "delete",  # a learner's data deleted (python -m app.storage delete)
    "regrade",  # a learner's attempts graded again (python -m app.regrade)
    "gradebook",  # the class's gradebook downloaded (the dashboard)
    "role",  # a person's role changed (the configuration names instructors)
    "view",  # a learner's history opened (the dashboard's Learner tab)
)
ACTIONS = (EXPORT, DELETE, REGRADE, GRADEBOOK, ROLE, VIEW)
CLASS = ""  # the subject of an action on the whole class
# An entry, with its learner's name as the dashboard knows it now ("" once they are deleted).
SELECT = """
SELECT a.id, a.created_at, a.actor, a.actor_name, a.action, a.subject, a.course_id, a.detail,
    COALESCE(pe.name, '') AS subject_name
FROM audit_log a LEFT JOIN people pe ON pe.owner = a.subject AND a.subject <> ''
"""
INSERT = (
    "INSERT INTO audit_log (created_at, actor, actor_name, action, subject, course_id, detail)"
    " VALUES (:at, :actor, :name, :action, :subject, :course, :detail)"
)


@dataclass(frozen=True)
class Actor:
    """Who acts: an identity (a signed-in person's, or a command's user) and a name to show."""

    identity: str
    name: str


CONFIGURATION = Actor("configuration", "the configuration (NINJA_INSTRUCTORS, its claim)")


def command_line() -> Actor:
    """Return who runs this command: the system's user, on this host."""
    try:
        user = pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:  # a uid without a name (a container's)
        user = f"uid {os.geteuid()}"
    host = socket.gethostname()
    return Actor(f"{user}@{host}", f"{user} on {host} (command line)")


@dataclass(frozen=True)
class Entry:
    """One recorded action."""

    id: int
    created_at: float
    actor: str
    actor_name: str
    action: str
    subject: str  # a learner's identity, or CLASS
    course_id: str
    detail: dict
    subject_name: str = ""  # the learner's name now, if known


class AuditLog(Part):
    """The store's calls that record instructors' actions and read them back."""

    def record(
        self, actor: Actor, action: str, subject: str = CLASS, detail: dict | None = None
    ) -> None:
        """Record one action on one learner's data (or the class's)."""
        self.record_many(actor, action, {subject: detail or {}})

    def record_many(self, actor: Actor, action: str, details: dict[str, dict]) -> None:
        """Record one action on several learners' data, in one transaction: {subject: detail}."""
        if details:
            with self._db() as db:
                write(db, self.course, actor, action, details)

    def entries(self, limit: int = 500) -> list[Entry]:
        """Return the latest entries of this course, newest first."""
        with self._db() as db:
            rows = db.execute(
                f"{SELECT} WHERE a.course_id = :c ORDER BY a.id DESC LIMIT :n",
                {"c": self.course, "n": limit},
            ).fetchall()
        return [_entry(r) for r in rows]


def write(db: Db, course: str, actor: Actor, action: str, details: dict[str, dict]) -> None:
    """Record one action on several learners' data in a transaction of the caller's (a part
    that changes a learner's data records it with the change): {subject: detail}."""
    if action not in ACTIONS:
        raise ValueError(f"no audit action {action!r}; known: {', '.join(ACTIONS)}")
    now = time.time()
    rows = [
        {"at": now, "actor": actor.identity, "name": actor.name, "action": action}
        | {"subject": subject, "course": course, "detail": json.dumps(detail)}
        for subject, detail in details.items()
    ]
    db.executemany(INSERT, rows)


def about(db: Db, identity: str) -> list[Entry]:
    """Return, oldest first and in every course, the entries about a learner, those of actions
    on the whole class, and those of actions the learner took (an instructor's own)."""
    rows = db.execute(
        f"{SELECT} WHERE a.subject IN (:who, :all) OR a.actor = :who ORDER BY a.id",
        {"who": identity, "all": CLASS},
    ).fetchall()
    return [_entry(r) for r in rows]


def _entry(row: Row) -> Entry:
    values = dict(row._mapping)
    return Entry(**{**values, "detail": json.loads(values["detail"])})
