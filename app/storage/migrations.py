"""Numbered steps that bring an older progress database up to date (run by storage.Store).

Step 4: attempts carry their facts as columns (whether the code ran, the first failed check, the
misconception id, the status, and where those came from). Rows recorded before step 4 have only
their feedback text: their facts are derived from it here, once, and marked `backfilled`. This
is the only place that reads a recorded sentence; every later reader uses the columns.

Step 5: drafts, attempts, events and submissions are keyed by (course id, exercise id), and an
attempt records the version of the exercise it answered (a hash of the exercise's files). Rows
recorded before step 5 came from the default course; their version is unknown ("").

Step 6: attempts say where they were submitted from (`origin`): the editor, or a graded
notebook; older rows were all typed in the editor.
"""

from __future__ import annotations

import sqlite3

GRADED, BACKFILLED = "graded", "backfilled"
EDITOR, NOTEBOOK = "editor", "notebook"  # where an attempt was submitted from (step 6)
REGRADE = "regrade"  # an old answer graded again by `python -m app.regrade --apply`: not a try
PASS_STEP = "whole_pass"  # a step exercise proven by a whole pass solved on its page
FACT_COLUMNS = (
    ("ran", "INTEGER NOT NULL DEFAULT 0"),
    ("failed_check", "TEXT NOT NULL DEFAULT ''"),
    ("misconception", "TEXT NOT NULL DEFAULT ''"),
    ("status", "TEXT NOT NULL DEFAULT ''"),
    ("facts", f"TEXT NOT NULL DEFAULT '{GRADED}'"),
)

# The wording of the feedback when step 4 was written, frozen here: (phrases that must all be
# in the text, misconception id), most specific first. Old instructors' sentences come last.
PHRASES = (
    (("uses autograd",), "autograd"),
    (("called autograd",), "autograd"),
    (("can reach autograd",), "autograd"),
    (("is not available here; you can use",), "unknown_name"),
    (("the inner sizes",), "matmul_shapes"),
    (("do not broadcast",), "broadcast_clash"),
    (("a view keeps the number of elements",), "bad_view"),
    (("a division by zero or a log of zero",), "non_finite"),
    (("a dimension was dropped",), "keepdim_lost"),
    (("the forward pass broadcast this tensor",), "broadcast_not_summed"),
    (("you summed over the wrong dim",), "summed_wrong_dim"),
    (("do not sum there",), "summed_not_broadcast"),
    (("the answer must have the shape of the tensor itself",), "wrong_shape"),
    (("only the shape is wrong",), "values_right_shape_wrong"),
    (("transpose of the gradient",), "transposed"),
    (("is also used by",), "missing_branch"),
    (("flows back through", "opposite sign"), "branch_sign_flipped"),
    (("flows back through", "constant factor"), "branch_factor"),
    (("the right size but the opposite sign",), "sign_flipped"),
    (("constant factor of n/(n-1)",), "bessel"),
    (("constant factor of (n-1)/n",), "bessel"),
    (("off by a constant factor",), "constant_factor"),
    (("(a mask)",), "mask_ignored"),
    (("the differences are in rows",), "wrong_values"),
    (("your answer is all zeros",), "all_zero"),
    (("not for other upstream gradients",), "upstream_ignored"),
    (("a size is hard-coded",), "hard_coded_size"),
    (("zeros pass on one batch by coincidence",), "zero_by_coincidence"),
    (("only the local derivative",), "local_only"),
    (("minus sign",), "sign_flipped"),
    (("Bessel",), "bessel"),
    (("keepdim",), "keepdim_lost"),
)
NOT_RUN = ("Your code ", "The grader failed")  # every sentence of code that did not run began so
FAULT = "The grader failed"


def add_facts(db: sqlite3.Connection) -> None:
    """Step 4: give attempts their fact columns, and derive old rows' facts once."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(attempts)")}
    if "facts" in columns:
        return
    for name, kind in FACT_COLUMNS:
        if name not in columns:
            db.execute(f"ALTER TABLE attempts ADD COLUMN {name} {kind}")
    rows = db.execute("SELECT id, solved, summary FROM attempts").fetchall()
    for row_id, solved, summary in rows:
        db.execute(
            "UPDATE attempts SET ran = ?, failed_check = ?, misconception = ?, status = ?,"
            " facts = ? WHERE id = ?",
            (*backfill(bool(solved), summary), BACKFILLED, row_id),
        )


def backfill(solved: bool, summary: str) -> tuple[bool, str, str, str]:
    """Return (ran, failed_check, misconception, status) read from an old row's text; the
    failed check is known only where the code did not run ("" otherwise)."""
    if solved:
        return True, "", "", "solved"
    if summary.startswith(FAULT):
        return False, "runs", "", "grader_failed"
    found = next((kind for phrases, kind in PHRASES if all(p in summary for p in phrases)), "")
    if not summary.startswith(NOT_RUN):
        return True, "", found, "not_solved"
    return False, "rules" if found == "autograd" else "runs", found, "not_solved"


DEFAULT_COURSE = "default"  # the course every row recorded before step 5 came from
COURSE_COLUMN = f"course_id TEXT NOT NULL DEFAULT '{DEFAULT_COURSE}'"
DRAFTS_V5 = f"""
CREATE TABLE drafts_v5 (
    profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    {COURSE_COLUMN}, exercise_id TEXT NOT NULL, code TEXT NOT NULL, updated_at REAL NOT NULL,
    PRIMARY KEY (profile_id, course_id, exercise_id));
INSERT INTO drafts_v5 (profile_id, exercise_id, code, updated_at)
    SELECT profile_id, exercise_id, code, updated_at FROM drafts;
DROP TABLE drafts;
ALTER TABLE drafts_v5 RENAME TO drafts;
"""


def add_courses(db: sqlite3.Connection) -> None:
    """Step 5: key progress by course too, and give attempts the exercise's version; rows
    recorded before belong to the default course. Safe to run on every start."""
    for table in ("attempts", "events", "submissions"):
        _add_column(db, table, "course_id", COURSE_COLUMN)
    _add_column(db, "attempts", "version", "version TEXT NOT NULL DEFAULT ''")
    if "course_id" not in _columns(db, "drafts"):  # its primary key changes: rebuild it, whole
        db.executescript(f"BEGIN IMMEDIATE; {DRAFTS_V5} COMMIT;")
    db.execute(
        "CREATE INDEX IF NOT EXISTS attempts_by_course"
        " ON attempts (profile_id, course_id, exercise_id)"
    )


def _add_column(db: sqlite3.Connection, table: str, name: str, column: str) -> None:
    """Add a column unless the table has it (a server starting at the same time may add it)."""
    if name in _columns(db, table):
        return
    try:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
    except sqlite3.OperationalError as err:
        if "duplicate column" not in str(err):
            raise


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    """Return the names of a table's columns."""
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def add_origin(db: sqlite3.Connection) -> None:
    """Step 6: give attempts the place they were submitted from (older ones: the editor)."""
    _add_column(db, "attempts", "origin", f"origin TEXT NOT NULL DEFAULT '{EDITOR}'")
