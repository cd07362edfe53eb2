"""Grade a learner's own Jupyter notebook of the lecture: its four exercises, found by content.

The notebook is only read (nbformat parses and validates the JSON; each cell is text); no cell
is executed. Only the code of the exercise cells is graded, by the graders that already exist,
so learner code still runs only in the sandbox:

    >>> found = read(Path("my.ipynb").read_bytes(), "my.ipynb")  # or NotebookError
    >>> result = grade(found, grader, exercise4)  # exercise4(code) -> GradCheck
    >>> [(p.title, p.status) for p in result.parts]

Cells are recognised by what they hold, never by position: Exercise 1 assigns `dlogprobs` (or
holds the `cmp('logprobs', ...)` lines), Exercises 2 and 3 assign `dlogits` and `dhprebn` (or
hold their `cmp` line), and Exercise 4 is the section after `# manual backprop!` in the loop.
`cells` reads and finds (nbformat only); `grading` grades (it loads torch when it runs).
"""

from grader.notebook.cells import (
    MAX_NOTEBOOK_BYTES,
    MISSING,
    TITLES,
    UNFILLED,
    WRITTEN,
    Found,
    NotebookError,
    Part,
    read,
)
from grader.notebook.grading import exercise4, grade, lecture_scenario

__all__ = [
    "MAX_NOTEBOOK_BYTES",
    "MISSING",
    "TITLES",
    "UNFILLED",
    "WRITTEN",
    "Found",
    "NotebookError",
    "Part",
    "exercise4",
    "grade",
    "lecture_scenario",
    "read",
]
