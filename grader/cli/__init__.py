"""The command line, `python -m grader <verb>`: one parser, one module per verb.

>>> from grader.cli import main
>>> main(["list"])  # the exit code
"""

from __future__ import annotations

from grader.cli.main import main

__all__ = ["main"]
