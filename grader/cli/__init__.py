"""The command line, `python -m grader <verb>`: one parser, one module per verb.

>>> from grader.cli import main
>>> main(["list"])  # the exit code

The app's instructor dashboard writes its gradebook through this face too (recorded.py): the
course's items and grade-batch's files, from plain data.
"""

from __future__ import annotations

from grader.cli.main import main
from grader.cli.recorded import course_items, gradebook_files

__all__ = ["course_items", "gradebook_files", "main"]
