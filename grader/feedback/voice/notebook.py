"""Notebooks: the learner's own Jupyter notebook of the lecture, graded part by part."""

from __future__ import annotations

__all__ = [
    "notebook_cell_too_long",
    "notebook_left",
    "notebook_malformed",
    "notebook_matches_lecture",
    "notebook_missing",
    "notebook_no_exercises",
    "notebook_not_json",
    "notebook_not_lecture",
    "notebook_nothing_written",
    "notebook_over_reader_limit",
    "notebook_solved",
    "notebook_too_deep",
    "notebook_too_large",
    "notebook_too_many_cells",
    "notebook_too_much_code",
    "notebook_unfilled",
]


def notebook_not_json(name: str, detail: str) -> str:
    return f"`{name}` is not a Jupyter notebook: it is not JSON ({detail})."


def notebook_malformed(name: str, detail: str) -> str:
    return f"`{name}` is not a valid Jupyter notebook: {detail}."


def notebook_too_large(name: str, limit_mib: int) -> str:
    return f"`{name}` is larger than {limit_mib} MiB; clear its outputs and try again."


def notebook_too_deep(name: str, levels: int, limit: int) -> str:
    return f"`{name}` nests its JSON {levels:,} levels deep; the limit is {limit}."


def notebook_too_many_cells(name: str, count: int, limit: int) -> str:
    return f"`{name}` has {count:,} cells; the limit is {limit:,}."


def notebook_cell_too_long(name: str, cell: int, chars: int, limit: int) -> str:
    return (
        f"Cell {cell} of `{name}` holds {chars:,} characters of code; "
        f"the limit is {limit:,} per cell."
    )


def notebook_too_much_code(name: str, chars: int, limit: int) -> str:
    return f"`{name}` holds {chars:,} characters of code; the limit is {limit:,}."


def notebook_over_reader_limit(name: str, limit: str) -> str:
    return f"`{name}` could not be read within {limit}; it is too costly to grade."


def notebook_not_lecture(name: str) -> str:
    return (
        f"`{name}` is not the lecture's notebook: none of its code cells has the lecture's "
        "forward pass or exercises. Hint: grade the notebook of the backprop ninja lecture."
    )


def notebook_no_exercises(name: str) -> str:
    return (
        f"`{name}` has the lecture's forward pass but none of its exercise cells (the "
        "`cmp('logprobs', ...)` cell, `dlogits`, `dhprebn`, the `# manual backprop!` section)."
    )


def notebook_nothing_written(name: str, titles: tuple[str, ...]) -> str:
    return f"`{name}` has no answer yet: {', '.join(titles)} still hold the lecture's blanks."


def notebook_unfilled(title: str) -> str:
    return f"{title} is not written yet: its cell still holds the lecture's blank."


def notebook_missing(title: str) -> str:
    return f"{title} has no cell in this notebook, so it is not graded."


def notebook_solved(count: int) -> str:
    return f"All {count} exercises of the notebook are solved."


def notebook_left(titles: tuple[str, ...]) -> str:
    return f"Not solved yet: {', '.join(titles)}."


def notebook_matches_lecture(slips: tuple[str, ...], others: int) -> str:
    names = ", ".join(f"`{s}`" for s in slips)
    left = "One shape is" if len(slips) == 1 else f"{len(slips)} shapes are"
    solved = f"; the other {others} exercises are solved" if others else ""
    return (
        f"Your notebook matches the lecture: every gradient of Exercise 1 has autograd's "
        f"values, as the lecture's `cmp` says{solved}. {left} left to fix, which `cmp` lets "
        f"through: {names} (a gradient has its variable's shape)."
    )
