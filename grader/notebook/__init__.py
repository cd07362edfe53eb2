"""Grade a learner's own Jupyter notebook of the lecture: its four exercises, found by content.

The notebook is only read, in a child process with a memory cap, after caps on its size,
nesting, cells and code (nbformat validates it; each cell is text); no cell is executed. Only
the code of the exercise cells is graded, by the graders that already exist, so learner code
still runs only in the sandbox:

    >>> found = read(Path("my.ipynb").read_bytes(), "my.ipynb")  # or NotebookError
    >>> result = grade(found, grader, exercise4)  # exercise4(code) -> GradCheck
    >>> [(p.title, p.status) for p in result.parts]

Cells are recognised by what they hold, never by position: Exercise 1 assigns `dlogprobs` (or
holds the `cmp('logprobs', ...)` lines), Exercises 2 and 3 assign `dlogits` and `dhprebn` (or
hold their `cmp` line), and Exercise 4 is the section after `# manual backprop!` in the loop.
`limits` holds the caps, `cells` reads and finds (nbformat only), `reader` does so in a child
(`python -m grader.notebook`); `grading` grades (it loads torch when it runs). Names are
imported on first use, so that the child imports no more than reading needs.
"""

from grader.lazy import lazy_names

_HOMES = {
    "MAX_NOTEBOOK_BYTES": "grader.notebook.limits",
    "MISSING": "grader.notebook.cells",
    "TITLES": "grader.notebook.cells",
    "UNFILLED": "grader.notebook.cells",
    "WRITTEN": "grader.notebook.cells",
    "Found": "grader.notebook.cells",
    "NotebookError": "grader.notebook.limits",
    "Part": "grader.notebook.cells",
    "exercise4": "grader.notebook.grading",
    "grade": "grader.notebook.grading",
    "lecture_scenario": "grader.notebook.grading",
    "read": "grader.notebook.reader",
}
__all__ = sorted(_HOMES)

__getattr__ = lazy_names("grader.notebook", _HOMES)
