"""The progress store, behind one URL (SQLite or PostgreSQL): what the pages keep and read.

    >>> from app.storage import open_store
    >>> store = open_store("sqlite:///var/progress.sqlite3", course="default")
    >>> store.work.statuses(profile)  # {exercise id: SOLVED or ATTEMPTED}

store.py is the Store, made of parts of at most a dozen calls each: profiles.py (`learners`:
the profiles of an identity, their settings), work.py (`work`: drafts, attempts, hints,
reveals), submissions.py (recorded before grading), runstore.py (`runs`: Exercise 4's finished
runs), wordlists.py (uploaded word lists, in files and rows), privacy.py (one learner's export
and deletion), lti.py (`lti`: the LMSs that may launch the tool, each launch's state). A
room above adds its own part the same way (`Part`: app/training/queue.py, the classroom's runs
on the task queue; app/classroom/classview.py, the class as a whole).
tables.py declares the tables once; engine.py opens SQLite or PostgreSQL through SQLAlchemy;
schema.py and alembic/ bring a database to those tables (`python -m app.storage upgrade`). A
call that cannot reach the database raises StorageUnavailable.
"""

from app.storage import auditlog, lti, schema, tables, wordlists
from app.storage.engine import Db, Part, StorageUnavailable
from app.storage.migrations import DEFAULT_COURSE, EDITOR, NOTEBOOK, PASS_STEP, REGRADE
from app.storage.profiles import Profile, StorageError
from app.storage.runstore import TrainingRun
from app.storage.schema import SchemaBehind
from app.storage.store import Store, open_store
from app.storage.work import (
    ATTEMPTED,
    NOT_SOLVED,
    SOLVED,
    Attempt,
    ExerciseProgress,
    Facts,
    facts_of,
)

__all__ = [
    "ATTEMPTED",
    "DEFAULT_COURSE",
    "EDITOR",
    "NOTEBOOK",
    "NOT_SOLVED",
    "PASS_STEP",
    "REGRADE",
    "SOLVED",
    "Attempt",
    "Db",
    "ExerciseProgress",
    "Facts",
    "Part",
    "Profile",
    "SchemaBehind",
    "StorageError",
    "StorageUnavailable",
    "Store",
    "TrainingRun",
    "auditlog",
    "lti",
    "facts_of",
    "open_store",
    "schema",
    "tables",
    "wordlists",
]
