"""`download-names`: fetch the lecture's names.txt once, verified."""

from __future__ import annotations

import sys
from pathlib import Path

from grader.cli.common import SOLVED, emit
from grader.course import BadInput
from grader.gradebook import safetext


def add_arguments(parser) -> None:
    """Add the arguments of `download-names`."""
    parser.add_argument("--url", help="where to download it from (default: makemore's GitHub)")
    parser.add_argument("--cache", type=Path, help="where to keep it (default: var/cache)")


def run(args) -> int:
    """Download the lecture's names.txt once, verified, showing progress on stderr."""
    import data

    def progress(done: int, total: int | None) -> None:
        of = f" of {total:,}" if total else ""
        print("\r" + safetext.shown(f"{done:,}{of} bytes"), end="", file=sys.stderr, flush=True)

    try:
        path = data.download_names(
            args.url or data.MAKEMORE_URL, cache_dir=args.cache, progress=progress
        )
    except data.DatasetError as err:
        print(file=sys.stderr)
        raise BadInput(str(err)) from None
    print(file=sys.stderr)
    emit(f"names.txt is verified (SHA-256 {data.NAMES_SHA256[:12]}…) at {path}")
    return SOLVED
