"""Grade a class at once: one file or folder per learner in, a gradebook (CSV and JSON) out.

Layout of the folder given to `python -m grader grade-batch DIR`:

    DIR/ada.py                    a whole pass (the scenario given by --scenario, else the first)
    DIR/grace/dlogprobs.py        an answer to one exercise: the file is named by the exercise id
    DIR/grace/whole_pass.py       a whole pass; whole_pass_<slug>.py for another scenario

Items are graded in parallel on the sandbox's slots; learner code runs only in the sandbox.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from grader.cli import classfolder, safetext
from grader.cli.inputs import MAX_ANSWER_BYTES, BadInput, answer_text
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
    root: Path  # the class folder
    parts: tuple[str, ...]  # the file's path under it, read without following a link

    @property
    def file(self) -> Path:
        """Return the file's path, for the gradebook."""
        return self.root.joinpath(*self.parts)


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
    """Return the items to grade under folder, and rows for entries that cannot be graded
    (links, FIFOs, devices, unreadable folders, undecodable names: see classfolder.py)."""
    try:
        entries = classfolder.listing(folder)
    except classfolder.Refused as err:
        raise BadInput(f"{folder} is not a folder of submissions: {err}") from None
    ids = {e.id for e in catalog.exercises}
    slugs = {s.slug for s in catalog.scenarios if s.whole_pass}
    items, refused = [], []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.kind == classfolder.FILE and entry.name.endswith(".py"):
            items.append(Item(entry.name[:-3], WHOLE_PASS, default_scenario, folder, (entry.name,)))
        elif entry.kind == classfolder.FOLDER:
            found = _learner(folder, entry.name, ids, slugs, default_scenario)
            items += [f for f in found if isinstance(f, Item)]
            refused += [f for f in found if isinstance(f, Graded)]
        else:
            why = entry.why or "not a .py file or a learner's folder"
            refused.append(_refused(Path(entry.name).stem, folder, (entry.name,), why))
    if not items and not refused:
        raise BadInput(f"{folder} holds no submissions (a .py file or a folder per learner)")
    return items, refused


def _learner(folder: Path, learner: str, ids: set, slugs: set, default: str) -> list:
    """Return the Items of one learner's folder, and a Graded row for each entry refused."""
    try:
        entries = classfolder.listing(folder, (learner,))
    except classfolder.Refused as err:
        return [_refused(learner, folder, (learner,), str(err))]
    found = []
    for entry in entries:
        where = (learner, entry.name)
        if entry.kind == classfolder.FILE:
            item = _item(folder, where, ids, slugs, default)
            why = "not an exercise id or whole_pass"
            found.append(_refused(learner, folder, where, why) if item is None else item)
        elif entry.kind == classfolder.FOLDER:
            found.append(_refused(learner, folder, where, "a folder inside a learner's folder"))
        else:
            found.append(_refused(learner, folder, where, entry.why))
    return found


def _item(root: Path, where: tuple[str, str], ids: set, slugs: set, default: str) -> Item | None:
    """Return what a file in a learner's folder answers, from its name (None: nothing)."""
    learner, name = where
    if not name.endswith(".py"):
        return None
    stem = name[:-3]
    slug = stem.removeprefix(f"{WHOLE_PASS}_")
    if stem in ids:
        kind, target = "exercise", stem
    elif stem == WHOLE_PASS:
        kind, target = WHOLE_PASS, default
    elif stem.startswith(f"{WHOLE_PASS}_") and slug in slugs:
        kind, target = WHOLE_PASS, slug
    else:
        return None
    return Item(learner, kind, target, root, where)


def scenarios_of(items: list[Item], catalog) -> list:
    """Return the scenarios that the items are graded on, each once, in catalog order."""
    slug = {e.id: e.scenario.slug for e in catalog.exercises}
    slugs = {i.target if i.kind == WHOLE_PASS else slug[i.target] for i in items}
    return [s for s in catalog.scenarios if s.slug in slugs]


def _refused(learner: str, root: Path, parts: tuple[str, ...], why: str) -> Graded:
    """Return the row of an entry that is not graded, and why."""
    file = str(root.joinpath(*parts))
    return Graded(learner, parts[-1], "unknown", False, "refused", f"Not graded: {why}.", file)


def read_item(item: Item) -> str:
    """Return an item's code, read without following a link; BadInput if it cannot be."""
    try:
        raw = classfolder.read(item.root, item.parts, MAX_ANSWER_BYTES + 1)
    except classfolder.Refused as err:
        raise BadInput(f"Not graded: {err}.") from None
    return answer_text(raw, str(item.file))


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
        code = read_item(item)
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
    from grader.grading import Grader
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


COLUMNS = ("learner", "item", "kind", "solved", "status", "summary", "file")


def write_gradebook(rows: list[Graded], out: Path, info: dict) -> tuple[Path, Path]:
    """Write <out>.csv (one row per item) and <out>.json (by learner), each whole or not at
    all (a temporary file renamed into place); return both paths.

    Every text is shown inert (safetext.shown: no control character, no undecodable byte);
    a CSV cell that a spreadsheet would read as a formula starts with a quote (safetext.cell).
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = out.with_suffix(".csv"), out.with_suffix(".json")
    ordered = sorted((_inert(r) for r in rows), key=lambda r: (r.learner, r.item))
    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow(COLUMNS)
    for r in ordered:
        writer.writerow([safetext.cell(str(getattr(r, c))) for c in COLUMNS])
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
    _write_whole(csv_path, table.getvalue())
    _write_whole(json_path, json.dumps(book, indent=2, ensure_ascii=True))
    return csv_path, json_path


def _inert(row: Graded) -> Graded:
    """Return a row with every text shown inert."""
    texts = ("learner", "item", "summary", "file")
    return replace(row, **{k: safetext.shown(getattr(row, k)) for k in texts})


def _write_whole(path: Path, text: str) -> None:
    """Write text to path atomically: a reader sees the old file or the new one, never half
    of one, and a link at path is replaced, never written through."""
    fd, draft = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(draft, path)
    except BaseException:
        Path(draft).unlink(missing_ok=True)
        raise


def progress_bar(done: int, total: int, started: float, stream=sys.stderr) -> None:
    """Draw a one-line progress bar on stderr."""
    width = 30
    filled = int(width * done / total) if total else width
    elapsed = time.monotonic() - started
    bar = "#" * filled + "-" * (width - filled)
    line = safetext.shown(f"[{bar}] {done}/{total} graded, {elapsed:.1f} s")
    print(f"\r{line}", end="", file=stream, flush=True)  # the bar's own return: it redraws
    if done == total:
        print(file=stream)
