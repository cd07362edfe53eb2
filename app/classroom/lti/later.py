"""A learner's score sent to their LMS after each solve, by a job on the task queue (procrastinate,
in the class's PostgreSQL, as training runs are: app/training/tasks.py). The replica that
records an attempt of a learner who launched from an LMS defers one job per item (`after`); the
classroom's worker (`python -m app.training`) takes it and sends that learner's mark of that
item as "Sync grades" does (grades.push: the one scoring function, tried again while the LMS
answers 5xx, every answer recorded). A mark the LMS already took is not sent again.

    >>> after_attempts(store, owner, ["dh"])       # a replica, after recording them
    >>> push_item(store, catalog, key, owner, "dh") # the worker's job: [Pushed(...)] or []

The local mode and a classroom whose people sign in by OIDC only defer nothing: nobody there
launched from an LMS (no `lti_links` row).
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING

from app.classroom.answers import Answers, gradebook_facts
from app.classroom.lti.grades import push
from app.storage import Part, open_store
from grader.gradebook import recorded_marks

if TYPE_CHECKING:
    import procrastinate

    from app.storage import Store
    from app.storage.lti import Pushed
    from grader import Catalog

TASK, QUEUE = "lti_push", "lti"
log = logging.getLogger("app.lti")


def after_attempts(store: Store, identity: str, items: list[str]) -> None:
    """Queue the pushes of a learner's items just recorded, if they launched from an LMS; a
    queue that cannot be written is logged (their attempts are kept: "Sync grades" sends them)."""
    try:
        jobs = Later(store).after(identity, items)
    except Exception as err:  # the database or the queue away: the learner's page goes on
        log.warning("LTI push not queued for %s %s: %r", identity, items, err)
        return
    if jobs:
        log.info("LTI push queued for %s %s: jobs %s", identity, items, jobs)


class Later(Part):
    """The replica's side: a job per item for a learner who launched from an LMS."""

    def after(self, identity: str, items: list[str]) -> list[int]:
        """Defer a job per item whose mark goes to the learner's LMS, in one transaction;
        return the jobs' ids ([] when they never launched from an LMS, or in the local mode)."""
        if self.store.path is not None or not identity or not items:
            return []  # SQLite: the local mode (the queue lives in PostgreSQL only)
        with self._db() as db:
            launched = db.execute(
                "SELECT 1 FROM lti_links WHERE identity = :who LIMIT 1", {"who": identity}
            ).first()
            if launched is None:
                return []
            return [_defer(db.driver, identity, item, self.course) for item in items]


def _defer(connection: object, identity: str, item: str, course: str) -> int:
    """Queue one push on a driver connection, inside its transaction; pushes of one learner's
    item run one at a time (procrastinate's lock), so the later one sends the later mark."""
    task = _deferrer().configure_task(
        TASK, queue=QUEUE, connection=connection, lock=f"lti {identity} {item}"
    )
    return task.defer(identity=identity, item=item, course=course)


@functools.cache
def _deferrer() -> procrastinate.App:
    """Return the App that writes jobs on a connection it is given (it opens none itself)."""
    import procrastinate

    return procrastinate.App(connector=procrastinate.SyncPsycopgConnector())


def push_item(
    store: Store, catalog: Catalog, key: tuple[str, str], identity: str, item: str
) -> list[Pushed]:
    """Send a learner's mark of one item to each LMS link they launched from, unless the LMS
    took that very mark last time; return what was sent (recorded with the LMS's answers)."""
    names = {p.id: identity for p in store.learners.profiles(identity)}
    answers = Answers(store).answers_of(list(names), item)
    marks = [m for m in recorded_marks(gradebook_facts(answers, names), catalog) if m.item == item]
    if not marks or _taken(store, identity, marks[0]):
        return []
    return push(store.lti, marks, identity, key)


def _taken(store: Store, identity: str, mark) -> bool:
    """Return whether the latest push of this learner's item was this mark, taken by the LMS."""
    last = store.lti.last_push(identity, mark.item)
    return last is not None and last.ok and (last.points, last.out_of) == (mark.points, mark.out_of)


class Pusher:
    """The worker's side: one call per job (`push_item` on the job's course), the exercises
    read once and the tool's key from the worker's secrets (NINJA_SECRETS_FILE, else
    Streamlit's secrets files)."""

    def __init__(self, url: str, catalog: Catalog, key: tuple[str, str] | None):
        self.url, self.catalog, self.key = url, catalog, key
        self._stores: dict[str, Store] = {}

    def __call__(self, identity: str, item: str, course: str) -> None:
        if self.key is None:
            log.error("LTI push of %s %s not sent: no [lti] key in the secrets", identity, item)
            return
        sent = push_item(self._store(course), self.catalog, self.key, identity, item)
        for p in sent:
            log.info("LTI push %s %s: %s/%s, LMS answered %s %s", identity, item, p.points,
                     p.out_of, p.status, p.answer)  # fmt: skip

    def _store(self, course: str) -> Store:
        if course not in self._stores:
            self._stores[course] = open_store(self.url, course)
        return self._stores[course]
