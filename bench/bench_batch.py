"""grade-batch on a generated class: wall time and the gradebook's figures.

.venv/bin/python bench/bench_batch.py            # 100 learners on 2 slots (goal: < 30 s)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=100)
    parser.add_argument("--slots", type=int, default=2)
    args = parser.parse_args()
    from grader.course.exercises import discover
    from grader.gradebook import write_class

    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "class"
        expected = write_class(subs, discover(), args.learners)
        start = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "grader", "grade-batch", str(subs), "--out",
             str(Path(tmp) / "book"), "--slots", str(args.slots)],
            cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
        wall = time.monotonic() - start
        book = json.loads((Path(tmp) / "book.json").read_text())
    items = sum(len(entry["items"]) for entry in book["learners"])
    solved = sum(entry["solved"] for entry in book["learners"])
    print(f"grade-batch: {args.learners} learners, {items} items on {args.slots} slots")
    print(f"  wall time {wall:.1f} s (goal < 30 s), of which grading {book['seconds']:.1f} s")
    print(f"  solved {solved} (expected {sum(expected.values())}), exit code {done.returncode}")


if __name__ == "__main__":
    main()
