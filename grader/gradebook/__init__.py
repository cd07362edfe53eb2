"""The gradebook: a class's answers graded into one book, and the books the app records.

    >>> from grader import gradebook
    >>> items, refused, learners = gradebook.collect_class(folder, catalog, "01_mlp")
    >>> rows = refused + gradebook.grade_all(grader, items, slots=2)
    >>> gradebook.write_gradebook(rows, Path("book"), info, book)  # book.csv, .wide.csv, .json

collect.py finds a class folder's items (one file or folder per learner, read without following
a link: classfolder.py) and reads a roster; grade.py grades them on the sandbox's slots;
book.py writes the long CSV, the wide CSV and the JSON (docs/gradebook.md), every text made
inert (safetext.py); recorded.py writes the same book from the attempts the app recorded (the
instructor dashboard's download); classgen.py writes a class of submissions for the tests and
the benchmark. policy.py is the one scoring function (`score`: points, partial credit, late
work, extensions, regrades) that grade-batch, the dashboard and the LMS push call; scored.py
writes its marks into the book; times.py reads a manifest of submission times; history.py
carries an earlier book's verdicts onto the same answers graded again; lms.py writes the book
an LMS imports as it is (Canvas, Moodle, Blackboard), its rows keyed by the LMS's roster.
`python -m grader grade-batch` (grader/cli/grade_batch.py) drives it. Names are imported on
first use.
"""

from __future__ import annotations

from grader.lazy import lazy_names

_HOMES = {
    "Book": "grader.gradebook.book",
    "Graded": "grader.gradebook.book",
    "Item": "grader.gradebook.collect",
    "LmsRoster": "grader.gradebook.lms",
    "Submission": "grader.gradebook.policy",
    "Verdict": "grader.gradebook.policy",
    "carried": "grader.gradebook.history",
    "read_manifest": "grader.gradebook.times",
    "read_previous": "grader.gradebook.history",
    "score": "grader.gradebook.policy",
    "stamped": "grader.gradebook.times",
    "recorded_marks": "grader.gradebook.recorded",
    "MAX_ANSWER_BYTES": "grader.gradebook.collect",
    "SCHEMA": "grader.gradebook.book",
    "answer_text": "grader.gradebook.collect",
    "collect_class": "grader.gradebook.collect",
    "columns_of": "grader.gradebook.book",
    "course_info": "grader.gradebook.book",
    "grade_all": "grader.gradebook.grade",
    "grade_one": "grader.gradebook.grade",
    "gradebook_files": "grader.gradebook.recorded",
    "read_roster": "grader.gradebook.collect",
    "scenarios_of": "grader.gradebook.collect",
    "write_class": "grader.gradebook.classgen",
    "write_gradebook": "grader.gradebook.book",
}
__all__ = sorted(_HOMES)

__getattr__ = lazy_names("grader.gradebook", _HOMES)
