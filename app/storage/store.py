"""The progress store, behind one URL: SQLite (the local mode) or PostgreSQL (the classroom).

`open_store(url)` returns a Store through SQLAlchemy Core: the same SQL text, with named
parameters, on both engines. A store is made of parts, each a small object on its own tables,
each call in one transaction of its own (so Streamlit's session threads never share one):

    >>> store = open_store("sqlite:////tmp/ninja.sqlite3")
    >>> me = store.learners.add_profile("ada")
    >>> store.work.save_draft(me, "dlogprobs", "dlogprobs = ...")
    >>> store.runs.training_runs(me)

A store is opened for one course (`open_store(url, course="attention")`): its drafts, attempts,
events and statuses are that course's, so two courses served from one database never share
progress, even where they share exercise ids. Profiles, settings and training runs belong to
the learner, whatever the course. The tables are tables.py's; the schema is Alembic's
(schema.py).
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from sqlalchemy import Engine

from app.config import private
from app.storage.auditlog import AuditLog
from app.storage.engine import Db, make_engine, transaction
from app.storage.lti import Lti
from app.storage.migrations import DEFAULT_COURSE
from app.storage.privacy import Privacy
from app.storage.profiles import Learners, StorageError
from app.storage.runstore import FinishedRuns
from app.storage.schema import check, sqlite_path, upgrade
from app.storage.submissions import Submissions
from app.storage.wordlists import WordLists
from app.storage.work import Work

# 2: profiles belong to a browser identity; 3: attempts carry a ticket; 4: and their facts;
# 5: progress is keyed by course, and an attempt records the exercise's version; 6: and where
# it was submitted from (the editor or a notebook); from 7 on, Alembic's revisions (meta keeps
# the number for a reader without Alembic); 10: uploaded word lists; 11: a classroom run's
# state is its job's; 12: an attempt's tally of tries (partial credit); 13: the audit log;
# 14: sign-ins kept on the server, uploads and limits met per learner; 15: LTI 1.3; 16: LTI
# rosters read on demand and SIS ids
SCHEMA_VERSION = 16


def open_store(url: str, course: str = DEFAULT_COURSE) -> Store:
    """Return one course's store for a database URL (`sqlite:///<path>` or `postgresql://...`).

    A SQLite file is created or upgraded here; a PostgreSQL database must already be at the
    code's schema (`python -m app.storage upgrade`), else SchemaBehind says so.
    """
    engine = make_engine(url)
    path = sqlite_path(engine)
    if path is None:
        check(engine)
        return Store(engine, course)
    private.folder(path.parent)
    private.database(path)
    with transaction(engine) as db:
        db.execute("PRAGMA journal_mode=WAL")
    upgrade(engine)
    return Store(engine, course)


class Store:
    """Progress of every profile in one course, in one database, in parts: `learners` (profiles
    and their settings), `work` (drafts, attempts, hints, reveals), `submissions` (recorded
    before grading), `runs` (finished training runs), `word_lists` (uploads), `privacy`
    (one learner's data out or gone), `audit` (what instructors did with learners' data) and
    `lti` (the LMSs that may launch the tool, and each launch's state)."""

    def __init__(self, engine: Engine, course: str = DEFAULT_COURSE):
        if not course:
            raise StorageError("A store needs a course id: got an empty one.")
        self.engine, self.course = engine, course
        self.path = sqlite_path(engine)  # None for a server database
        self.learners = Learners(self)
        self.work = Work(self)
        self.submissions = Submissions(self)
        self.runs = FinishedRuns(self)
        self.word_lists = WordLists(self)
        self.privacy = Privacy(self)
        self.audit = AuditLog(self)
        self.lti = Lti(self)

    def transaction(self) -> AbstractContextManager[Db]:
        """Return one transaction: committed on success, rolled back on an error. A part runs
        SQL text with named parameters in it: `db.execute("... WHERE id = :p", {"p": 1})`."""
        return transaction(self.engine)
