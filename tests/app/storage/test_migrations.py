"""Schema step 4: a database written by schema 3 gains the fact columns, old rows backfilled;
step 6: attempts say where they were submitted from (old ones: the editor); and a file of
schema 6 (the last before Alembic) reaches Alembic's head with every row."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from app.storage import Attempt, Facts, open_store
from app.storage.legacy import bring_to_six, is_legacy
from app.storage.migrations import BACKFILLED, EDITOR, GRADED, NOTEBOOK
from app.storage.schema import current, head
from app.storage.store import SCHEMA_VERSION
from grader.misconceptions import IDS

# Schema 3 as it was written before step 4 (the tables an attempt needs).
SCHEMA_3 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE profiles (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at REAL NOT NULL,
    owner TEXT NOT NULL DEFAULT '', UNIQUE (owner, name));
CREATE TABLE attempts (
    id INTEGER PRIMARY KEY,
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    exercise_id TEXT NOT NULL, code TEXT NOT NULL, solved INTEGER NOT NULL,
    summary TEXT NOT NULL, elapsed REAL NOT NULL, time_spent REAL NOT NULL,
    dataset TEXT NOT NULL, created_at REAL NOT NULL, ticket TEXT);
INSERT INTO meta VALUES ('schema_version', '3');
INSERT INTO profiles VALUES (1, 'ada', 0.0, '');
"""
# (solved, the feedback recorded then, ran, failed check, misconception, status)
OLD_ROWS = [
    (True, "`dprobs` matches autograd exactly.", True, "", "", "solved"),
    (False, "Your code raised ZeroDivisionError on line 2:", False, "runs", "", "not_solved"),
    (
        False,
        "Your code uses autograd (`backward`) on line 1; write the gradient by hand. Hint: derive "
        "the local derivative and multiply by the upstream gradient.",
        False,
        "rules",
        "autograd",
        "not_solved",
    ),
    (
        False,
        "`dcounts_sum_inv` has the wrong shape: got (32,) = (n,), expected (32, 1) = (n, 1). "
        "Hint: the values are right but a dimension was dropped; sum with keepdim=True.",
        True,
        "",
        "keepdim_lost",
        "not_solved",
    ),
    (
        False,
        "`dprobs` has wrong values: max abs diff 2.1e+00 at (3, 4); tolerance 1e-08 + 1e-05 × "
        "|autograd's value|. Hint: your answer has the right size but the opposite sign.",
        True,
        "",
        "sign_flipped",
        "not_solved",
    ),
    (
        False,
        "`dbndiff2` is inaccurate: max abs diff 1.2e-04 at (0, 1); tolerance 1e-08 + 1e-05 × "
        "|autograd's value|. Hint: your answer is off by a constant factor of (n-1)/n.",
        True,
        "",
        "bessel",
        "not_solved",
    ),
    (
        False,
        "`dbndiff` has wrong values: max abs diff 3.0e-01 at (1, 2); tolerance 1e-08 + 1e-05 × "
        "|autograd's value|. Hint: `bndiff` is also used by `bndiff2`; add that contribution too.",
        True,
        "",
        "missing_branch",
        "not_solved",
    ),
    (
        False,
        "`dlogprobs` is inaccurate: max abs diff 5.8e-05 at (0, 5); tolerance 1e-08 + 1e-05 × "
        "|autograd's value|. Hint: your answer is right for the lecture's sizes but not for "
        "others, so a size is hard-coded; use n, shapes of tensors or keepdim instead of numbers "
        "like 32, 64, 27, 3 or 10.",
        True,
        "",
        "hard_coded_size",
        "not_solved",
    ),
    (
        False,
        "The grader failed; this is not a problem with your code.",
        False,
        "runs",
        "",
        "grader_failed",
    ),
    (False, "`dh` has wrong values: max abs diff 1.0e+00 at (0, 0).", True, "", "", "not_solved"),
]


@pytest.fixture
def old_database(tmp_path):
    """Return the path of a database written by schema 3, with one attempt per OLD_ROWS."""
    path = tmp_path / "progress.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA_3)
        for i, (solved, summary, *_) in enumerate(OLD_ROWS):
            db.execute(
                "INSERT INTO attempts (profile_id, exercise_id, code, solved, summary, elapsed,"
                " time_spent, dataset, created_at) VALUES (1, 'dprobs', ?, ?, ?, 0.1, 2.0,"
                " 'default', ?)",
                (f"x = {i}", int(solved), summary, 100.0 + i),
            )
    return path


def test_an_old_database_gains_the_columns_and_every_old_attempt_its_facts(old_database):
    store = open_store(f"sqlite:///{old_database}")
    with sqlite3.connect(old_database) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(attempts)")}
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    assert {"ran", "failed_check", "misconception", "status", "facts"} <= columns
    assert version == (str(SCHEMA_VERSION),)
    (ada,) = store.learners.profiles()
    got = [a.facts for a in store.work.attempts(ada)]
    expected = [
        Facts(ran, check, idea, status, BACKFILLED) for _, _, ran, check, idea, status in OLD_ROWS
    ]
    assert got == expected
    assert all(f.misconception in ("", *IDS) for f in got)


def test_the_backfill_runs_once_and_new_attempts_store_the_graders_facts(old_database):
    store = open_store(f"sqlite:///{old_database}")
    (ada,) = store.learners.profiles()
    fresh = Facts(True, "lecture", "transposed", "not_solved")
    store.work.record_attempt(
        ada, Attempt("dW2", "dW2 = h @ dlogits", False, "whatever", 0, 1, "d", facts=fresh)
    )
    again = open_store(f"sqlite:///{old_database}")  # opening again backfills nothing more
    facts = [a.facts for a in again.work.attempts(ada)]
    assert facts[-1] == fresh and fresh.source == GRADED
    assert [f.source for f in facts[:-1]] == [BACKFILLED] * len(OLD_ROWS)


def test_old_attempts_come_from_the_editor_and_a_notebooks_are_marked(old_database):
    store = open_store(f"sqlite:///{old_database}")
    (ada,) = store.learners.profiles()
    assert {a.origin for a in store.work.attempts(ada)} == {EDITOR}
    graded = Attempt("dlogits_fused", "dlogits = 0", True, "ok", 0, 0, "d", origin=NOTEBOOK)
    store.work.record_attempt(ada, graded)
    again = open_store(f"sqlite:///{old_database}")
    assert [a.origin for a in again.work.attempts(ada)] == [EDITOR] * len(OLD_ROWS) + [NOTEBOOK]


def _schema_six_with_rows(path) -> None:
    """Write a progress file as the code before Alembic left it (schema 6), a row per table."""
    bring_to_six(path)
    with closing(sqlite3.connect(path)) as db, db:
        db.executescript(ROWS_6)


ROWS_6 = """
INSERT INTO profiles VALUES (4, 'ada', 1.0, 'browser-a'), (9, 'bob', 2.0, 'browser-b');
INSERT INTO learners VALUES ('browser-a', 4);
INSERT INTO settings VALUES (4, 'dataset', 'names');
INSERT INTO drafts VALUES (4, 'attention', 'dh', 'dh = 1', 3.0);
INSERT INTO attempts (id, profile_id, exercise_id, code, solved, summary, elapsed, time_spent,
    dataset, created_at, ticket, ran, failed_check, misconception, status, facts, course_id,
    version, origin)
    VALUES (1, 4, 'dh', 'dh = 1', 0, 'no', 0.1, 5.0, 'names', 4.0, 'p:1', 1, '', 'transposed',
    'not_solved', 'graded', 'attention', 'v1', 'notebook');
INSERT INTO events VALUES (1, 9, 'dh', 'hint', 5.0, 'default');
INSERT INTO submissions VALUES ('p:2', 9, 'dW2', 'dW2 = 0', 's1', 6.0, 'default');
INSERT INTO training_runs VALUES (1, 4, '{}', 2.1, 2.2, '[]', 10.0, 1.0, '[]', 'names', 'x', 7.0);
"""


def test_a_schema_six_file_reaches_the_head_with_every_row(tmp_path):
    path = tmp_path / "progress.sqlite3"
    _schema_six_with_rows(path)
    assert is_legacy(path)
    store = open_store(f"sqlite:///{path}", course="attention")
    assert not is_legacy(path) and current(store.engine) == head()
    ada, bob = store.learners.profiles()
    assert (ada.id, ada.owner, bob.id) == (4, "browser-a", 9)
    assert (
        store.learners.last_profile("browser-a") == ada
        and store.learners.setting(ada, "dataset") == "names"
    )
    assert store.work.draft(ada, "dh") == "dh = 1"
    (attempt,) = store.work.attempts(ada)
    assert (attempt.version, attempt.origin, attempt.facts.misconception) == (
        "v1",
        NOTEBOOK,
        "transposed",
    )
    assert store.runs.training_runs(ada)[0].val_loss == 2.2
    other = open_store(f"sqlite:///{path}")  # the default course
    assert other.work.event_counts(bob, "dh") == {"hint": 1}
    assert [p.ticket for p in other.submissions.pending(bob, "dW2")] == ["p:2"]
    assert not store.submissions.begin_submission(ada, "dh", "p:1", "x", "x", "s"), (
        "its ticket still counts"
    )
