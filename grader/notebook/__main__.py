"""`python -m grader.notebook`: read one notebook from stdin (the child of reader.read)."""

from data import bounded


def main() -> None:
    """Cap this process, import what reading needs (a spare waits warm), then read."""
    bounded.limit()
    import nbformat  # noqa: F401  (imported before the upload arrives)
    import numpy  # noqa: F401

    from grader.notebook.limits import MAX_NOTEBOOK_BYTES
    from grader.notebook.reader import read_in_child

    bounded.serve(read_in_child, MAX_NOTEBOOK_BYTES)


if __name__ == "__main__":
    main()
