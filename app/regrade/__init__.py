"""`python -m app.regrade`: grade the stored attempts again after an exercise was fixed.

An attempt records the version of the exercise it answered (a hash of its files). After a fix,
the attempts made at an earlier version are graded again at the current one, each through the
sandbox as `grade-batch` grades (learner code runs only in the sandbox's workers: never in this
process, which holds the references, nor in the app's), and each change is shown:

    $ python -m app.regrade                      # a dry run: what would change
    ada (#1)  dxhat  2026-11-20 14:02  solved -> not_solved  version 3f2a9c01b7e4 -> 7be410d2aa93
    $ python -m app.regrade --apply              # record the new verdicts

`--apply` records each new verdict as a new attempt (origin `regrade`, the answer's own time, no
time spent); the old attempts stay. The database and the course are the app's (NINJA_DATA_DIR,
NINJA_DATABASE_URL, NINJA_EXERCISES_DIR) unless `--database` or `--exercises` name others.
Exit codes as `python -m grader`'s: 0 done, 2 bad input (nothing graded), 3 the grader failed.
docs/gradebook.md, "Re-grading stored attempts", says more. command.py is the command,
report.py what it prints.
"""

from app.regrade.command import BAD_INPUT, DONE, GRADER_FAILED, REGRADE, main, stale_attempts
from app.regrade.report import Change

__all__ = ["BAD_INPUT", "DONE", "GRADER_FAILED", "REGRADE", "Change", "main", "stale_attempts"]
