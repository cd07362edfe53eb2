"""The progress store, behind one URL (SQLite or PostgreSQL): what the pages keep and read.

    >>> from app.storage import open_store
    >>> store = open_store("sqlite:///var/progress.db", course="default")
    >>> store.statuses(profile)  # {exercise id: SOLVED or ATTEMPTED}

store.py is the Store (drafts, attempts, hints, reveals); profiles.py the learner profiles of
an identity; submissions.py the submissions recorded before grading; runstore.py Exercise 4's
finished training runs; queue.py its runs on the classroom's task queue; privacy.py one
learner's export and deletion. engine.py opens SQLite or PostgreSQL through SQLAlchemy;
schema.py and alembic/ keep the schema (`python -m app.storage upgrade`). A call that cannot
reach the database raises StorageUnavailable.
"""

from app.storage.engine import StorageUnavailable
from app.storage.profiles import Profile, StorageError
from app.storage.queue import QueuedRun
from app.storage.runstore import TrainingRun
from app.storage.schema import SchemaBehind
from app.storage.store import (
    ATTEMPTED,
    DEFAULT_COURSE,
    EDITOR,
    NOT_SOLVED,
    NOTEBOOK,
    REGRADE,
    SOLVED,
    Attempt,
    Facts,
    Store,
    facts_of,
    open_store,
)

__all__ = [
    "ATTEMPTED",
    "DEFAULT_COURSE",
    "EDITOR",
    "NOT_SOLVED",
    "NOTEBOOK",
    "REGRADE",
    "SOLVED",
    "SchemaBehind",
    "Attempt",
    "Facts",
    "Profile",
    "QueuedRun",
    "StorageError",
    "StorageUnavailable",
    "Store",
    "TrainingRun",
    "facts_of",
    "open_store",
]
