"""Grade a class at once: one file or folder per learner in, a gradebook (CSV and JSON) out.

Layout of the folder given to `python -m grader grade-batch DIR`:

    DIR/ada.py                    a whole pass (the scenario given by --scenario, else the first)
    DIR/grace/dlogprobs.py        an answer to one exercise: the file is named by the exercise id
    DIR/grace/whole_pass.py       a whole pass; whole_pass_<slug>.py for another scenario

Items are graded in parallel on the sandbox's slots; learner code runs only in the sandbox.
"""

from __future__ import annotations

import csv
import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.inputs import BadInput, read_answer
from grader.result import BUSY, GRADER_FAILED

SCHEMA = "backprop-ninja/gradebook/1"
WHOLE_PASS = "whole_pass"
BUSY_RETRIES = 20


@dataclass(frozen=True)
class Item:
    """One thing to grade: a learner's file, as an exercise answer or a whole pass."""

    learner: str
    kind: str  # "exercise" or "whole_pass"
    target: str  # the exercise id, or the scenario slug
    file: Path


@dataclass(frozen=True)
class Graded:
    """One row of the gradebook."""

    learner: str
    item: str  # the exercise id, or whole_pass:<slug>
    kind: str
    solved: bool
    status: str  # solved, not_solved, refused (the file could not be graded), grader_failed
    summary: str
    file: str


def collect(folder: Path, catalog, default_scenario: str) -> tuple[list[Item], list[Graded]]:
    """Return the items to grade under folder, and rows for files that cannot be graded."""
    if not folder.is_dir():
        raise BadInput(f"{folder} is not a folder of submissions")
    ids = {e.id for e in catalog.exercises}
    slugs = {s.slug for s in catalog.scenarios if s.whole_pass}
    items, refused = [], []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_file() and entry.suffix == ".py":
            items.append(Item(entry.stem, WHOLE_PASS, default_scenario, entry))
        elif entry.is_dir():
            for file in sorted(p for p in entry.iterdir() if p.is_file()):
                item = _item(entry.name, file, ids, slugs, default_scenario)
                if item is None:
                    refused.append(_refused(entry.name, file, "not an exercise id or whole_pass"))
                else:
                    items.append(item)
        else:
            refused.append(_refused(entry.stem, entry, "not a .py file or a learner's folder"))
    if not items and not refused:
        raise BadInput(f"{folder} holds no submissions (a .py file or a folder per learner)")
    return items, refused


def _item(learner: str, file: Path, ids: set, slugs: set, default: str) -> Item | None:
    """Return what a file in a learner's folder answers, from its name."""
    if file.suffix != ".py":
        return None
    if file.stem in ids:
        return Item(learner, "exercise", file.stem, file)
    if file.stem == WHOLE_PASS:
        return Item(learner, WHOLE_PASS, default, file)
    slug = file.stem.removeprefix(f"{WHOLE_PASS}_")
    if file.stem.startswith(f"{WHOLE_PASS}_") and slug in slugs:
        return Item(learner, WHOLE_PASS, slug, file)
    return None


def scenarios_of(items: list[Item], catalog) -> list:
    """Return the scenarios that the items are graded on, each once, in catalog order."""
    slug = {e.id: e.scenario.slug for e in catalog.exercises}
    slugs = {i.target if i.kind == WHOLE_PASS else slug[i.target] for i in items}
    return [s for s in catalog.scenarios if s.slug in slugs]


def _refused(learner: str, file: Path, why: str) -> Graded:
    return Graded(learner, file.name, "unknown", False, "refused", f"Not graded: {why}.", str(file))


def grade_all(grader, items: list[Item], slots: int, progress=None) -> list[Graded]:
    """Grade every item, `slots` at a time; call progress(done, total) after each."""
    done, lock = [0], threading.Lock()

    def one(item: Item) -> Graded:
        row = grade_one(grader, item)
        with lock:
            done[0] += 1
            if progress:
                progress(done[0], len(items))
        return row

    with ThreadPoolExecutor(max_workers=max(1, slots)) as pool:
        return list(pool.map(one, items))


def grade_one(grader, item: Item) -> Graded:
    """Grade one item; a file that cannot be read is refused, never the grader's fault."""
    label = item.target if item.kind == "exercise" else f"{WHOLE_PASS}:{item.target}"
    try:
        code = read_answer(item.file)
    except BadInput as err:
        return Graded(item.learner, label, item.kind, False, "refused", str(err), str(item.file))
    for _ in range(BUSY_RETRIES):
        if item.kind == "exercise":
            result = grader.grade(item.target, code)
            summary = result.summary_with_hint()
        else:
            result = grader.grade_pass(code, item.target)
            summary = result.message
        if not result.busy:
            break
        time.sleep(0.2)
    status = GRADER_FAILED if result.status == BUSY else result.status  # never graded, then
    return Graded(item.learner, label, item.kind, result.solved, status, summary, str(item.file))


def add_arguments(parser) -> None:
    """Add the arguments of `python -m grader grade-batch`."""
    parser.add_argument("folder", type=Path, help="a .py file or a folder per learner")
    parser.add_argument("--out", type=Path, default=Path("gradebook"), help="OUT.csv, OUT.json")
    parser.add_argument("--scenario", help="the whole pass a learner's .py is (default: first)")
    parser.add_argument("--data", help="default, names, or a word-list file (txt or csv)")
    parser.add_argument("--cache", type=Path, help="where names.txt is (default: var/cache)")
    parser.add_argument("--slots", type=_slots, default=2, help="runs at once, 1-16 (default 2)")
    parser.add_argument("--exercises", type=Path, help="another exercises folder (a course)")


def _slots(text: str) -> int:
    """Parse --slots: 1 to 16 runs at once."""
    if not text.isdigit() or not 1 <= int(text) <= 16:
        raise BadInput(f"--slots must be a number from 1 to 16, got {text!r}")
    return int(text)


def summary(rows: list[Graded], paths: tuple[Path, Path], seconds: float) -> list[str]:
    """Return the lines printed after a batch."""
    solved, learners = sum(r.solved for r in rows), len({r.learner for r in rows})
    return [
        f"{len(rows)} items of {learners} learners graded in {seconds:.1f} s, {solved} solved.",
        f"Gradebook: {paths[0]} and {paths[1]}",
    ]


def run(catalog, dataset, items: list[Item], refused: list[Graded], args):
    """Grade the items on a sandbox of args.slots slots; write the book; return rows, paths,
    seconds."""
    from grader.engine import Grader
    from grader.sandbox import Sandbox

    started = time.monotonic()
    sandbox = Sandbox(slots=args.slots)
    try:
        grader = Grader(dataset, catalog, sandbox)
        rows = refused + grade_all(
            grader, items, args.slots, lambda k, n: progress_bar(k, n, started)
        )
    finally:
        sandbox.close()
    seconds = time.monotonic() - started
    info = {"dataset": dataset.name, "seconds": round(seconds, 2)}
    return rows, write_gradebook(rows, args.out, info), seconds


def write_gradebook(rows: list[Graded], out: Path, info: dict) -> tuple[Path, Path]:
    """Write <out>.csv (one row per item) and <out>.json (by learner); return both paths."""
    out.parent.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = out.with_suffix(".csv"), out.with_suffix(".json")
    ordered = sorted(rows, key=lambda r: (r.learner, r.item))
    with csv_path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["learner", "item", "kind", "solved", "status", "summary", "file"])
        for r in ordered:
            writer.writerow([r.learner, r.item, r.kind, r.solved, r.status, r.summary, r.file])
    learners: dict[str, list[Graded]] = {}
    for r in ordered:
        learners.setdefault(r.learner, []).append(r)
    book = {
        "schema": SCHEMA,
        **info,
        "learners": [
            {
                "learner": name,
                "solved": sum(r.solved for r in items),
                "graded": sum(r.status != "refused" for r in items),
                "items": [asdict(r) for r in items],
            }
            for name, items in learners.items()
        ],
    }
    json_path.write_text(json.dumps(book, indent=2, ensure_ascii=True), encoding="utf-8")
    return csv_path, json_path


def progress_bar(done: int, total: int, started: float, stream=sys.stderr) -> None:
    """Draw a one-line progress bar on stderr."""
    width = 30
    filled = int(width * done / total) if total else width
    elapsed = time.monotonic() - started
    bar = "#" * filled + "-" * (width - filled)
    print(f"\r[{bar}] {done}/{total} graded, {elapsed:.1f} s", end="", file=stream, flush=True)
    if done == total:
        print(file=stream)
