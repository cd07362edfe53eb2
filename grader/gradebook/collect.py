"""Grade a class at once: one file or folder per learner in, a gradebook (CSV and JSON) out.

Layout of the folder given to `python -m grader grade-batch DIR`:

    DIR/ada.py                    a whole pass (the scenario given by --scenario, else the first)
    DIR/grace/dlogprobs.py        an answer to one exercise: the file is named by the exercise id
    DIR/grace/whole_pass.py       a whole pass; whole_pass_<slug>.py for another scenario

Items are graded in parallel on the sandbox's slots; learner code runs only in the sandbox.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import io
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from grader.cli import classfolder, safetext
from grader.cli.common import start_sandbox
from grader.cli.inputs import MAX_ANSWER_BYTES, BadInput, answer_text
from grader.feedback import voice as feedback
from grader.result import BUSY, GRADER_FAILED, SOLVED

SCHEMA = "backprop-ninja/gradebook/2"
BOM = "\ufeff"  # so a spreadsheet (Excel on Windows) reads the CSVs as UTF-8
MAX_ROSTER_BYTES = 1 << 20
WHOLE_PASS = "whole_pass"
BUSY_RETRIES = 20
UNKNOWN = "not an exercise id or whole_pass"
NOT_AN_ENTRY = (  # a file in DIR that is not a learner's whole pass: not .py, or no whole pass
    "not a .py file or a learner's folder",
    "the course has no whole pass: a learner's answers go in a folder named after them",
)
NO_AUTOGRAD, AUTOGRAD = "rules", "autograd"  # the check that refuses autograd, and the flag
# graded with --grade-sound: the name may be an exercise that failed to load, not a slip
UNKNOWN_IN_BROKEN = (
    "not the id of an exercise that loaded (the course has problems, so it may be one that "
    "failed to load: not the learner's fault)"
)


@dataclass(frozen=True)
class Item:
    """One thing to grade: a learner's file, as an exercise answer or a whole pass."""

    learner: str
    kind: str  # "exercise" or "whole_pass"
    target: str  # the exercise id, or the scenario slug
    root: Path  # the class folder
    parts: tuple[str, ...]  # the file's path under it, read without following a link
    mtime: float = 0.0  # the file's modification time, which [deadlines] is compared with

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
    version: str = ""  # the exercise's content version (a hash of its files), "" for others
    integrity: str = ""  # "autograd" when the answer reached autograd: for a review, not a grade
    late: bool = False  # the file was modified after the item's deadline ([deadlines])


@dataclass(frozen=True)
class Book:
    """What the gradebook is of: the course's items (the wide CSV's columns, in course order),
    every learner to list (found in the folder, empty folders included, and the roster's), and
    the roster itself (None: none given)."""

    columns: tuple[str, ...] = ()
    learners: tuple[str, ...] = ()
    roster: tuple[str, ...] | None = None
    info: dict = field(default_factory=dict)
    points: tuple[float, ...] = ()  # each column's points, in order (none given: 1 each)

    def weights(self) -> tuple[float, ...]:
        """Return each column's points: [points] of course.toml, else 1."""
        return self.points or (1,) * len(self.columns)

    def scored(self, items: list[Graded]) -> float:
        """Return the points of the items of the course a learner solved."""
        pairs = zip(self.columns, self.weights(), strict=True)
        return sum(w for c, w in pairs if _best(items, c) == SOLVED)


def collect(folder: Path, catalog, default_scenario: str) -> tuple[list[Item], list[Graded]]:
    """Return the items to grade under folder, and rows for entries that cannot be graded
    (links, FIFOs, devices, unreadable folders, undecodable names: see classfolder.py)."""
    items, refused, _ = collect_class(folder, catalog, default_scenario)
    return items, refused


def collect_class(folder: Path, catalog, default_scenario: str):
    """Return collect()'s items and refused rows, and the name of every learner found (an
    empty learner's folder included, so that nobody is left out of the book silently)."""
    try:
        entries = classfolder.listing(folder)
    except classfolder.Refused as err:
        raise BadInput(f"{folder} is not a folder of submissions: {err}") from None
    ids = {e.id for e in catalog.exercises}
    slugs = {s.slug for s in catalog.scenarios if s.whole_pass}
    items, refused, names = [], [], set()
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.kind == classfolder.FOLDER:
            names.add(entry.name)
        if entry.kind == classfolder.FILE and entry.name.endswith(".py") and default_scenario:
            where = (entry.name,)
            item = Item(entry.name[:-3], WHOLE_PASS, default_scenario, folder, where, entry.mtime)
            items.append(item)
        elif entry.kind == classfolder.FOLDER:
            unknown = UNKNOWN_IN_BROKEN if catalog.errors else UNKNOWN
            found = _learner(folder, entry.name, (ids, slugs, unknown), default_scenario)
            items += [f for f in found if isinstance(f, Item)]
            refused += [f for f in found if isinstance(f, Graded)]
        else:
            why = entry.why or NOT_AN_ENTRY[entry.name.endswith(".py")]
            refused.append(_refused(Path(entry.name).stem, folder, (entry.name,), why))
    if not items and not refused and not names:
        raise BadInput(f"{folder} holds no submissions (a .py file or a folder per learner)")
    return items, refused, sorted(names | {i.learner for i in items} | {r.learner for r in refused})


def _learner(folder: Path, learner: str, known: tuple, default: str) -> list:
    """Return the Items of one learner's folder, and a Graded row for each entry refused;
    known: the exercise ids, the scenarios with a whole pass, and what an unknown name is."""
    ids, slugs, unknown = known
    try:
        entries = classfolder.listing(folder, (learner,))
    except classfolder.Refused as err:
        return [_refused(learner, folder, (learner,), str(err))]
    found = []
    for entry in entries:
        where = (learner, entry.name)
        if entry.kind == classfolder.FILE:
            item = _item(folder, where, ids, slugs, default)
            item = item and replace(item, mtime=entry.mtime)
            why = unknown + did_you_mean(entry.name, ids)
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
    elif stem == WHOLE_PASS and default:
        kind, target = WHOLE_PASS, default
    elif stem.startswith(f"{WHOLE_PASS}_") and slug in slugs:
        kind, target = WHOLE_PASS, slug
    else:
        return None
    return Item(learner, kind, target, root, where)


def did_you_mean(name: str, ids: Iterable[str]) -> str:
    """Return "; did you mean `dW2`?" for a file named like an exercise id, else ""."""
    stem = name[:-3] if name.endswith(".py") else name
    by_case = {i.lower(): i for i in ids}
    close = by_case.get(stem.lower()) or next(
        iter(difflib.get_close_matches(stem.lower(), list(by_case), n=1, cutoff=0.8)), None
    )
    return f"; did you mean `{by_case.get(close, close)}.py`?" if close else ""


def columns_of(catalog) -> tuple[str, ...]:
    """Return the course's items, the wide CSV's columns: every exercise id in course order,
    then each scenario's whole pass (whole_pass:<slug>)."""
    passes = tuple(f"{WHOLE_PASS}:{s.slug}" for s in catalog.scenarios if s.whole_pass)
    return tuple(e.id for e in catalog.exercises) + passes


def course_info(catalog) -> dict:
    """Return the course's id and version: a hash of every exercise's content version, so a
    book says which course, as written then, it was graded against."""
    digest = hashlib.sha256()
    for e in catalog.exercises:
        digest.update(f"{e.id}:{e.version}\n".encode())
    return {"id": catalog.course.id, "version": digest.hexdigest()[:12]}


def read_roster(path: Path) -> tuple[str, ...]:
    """Return the learners of a roster file: one name per line (UTF-8, a BOM allowed; blank
    lines and lines starting with # left out); BadInput if it cannot be read."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_ROSTER_BYTES + 1)
    except OSError as err:
        raise BadInput(f"--roster {path} cannot be read: {err.strerror}") from None
    if len(raw) > MAX_ROSTER_BYTES:
        raise BadInput(f"--roster {path} is larger than {MAX_ROSTER_BYTES} bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadInput(f"--roster {path} is not UTF-8 text") from None
    names = (line.strip() for line in text.splitlines())
    return tuple(dict.fromkeys(n for n in names if n and not n.startswith("#")))


def scenarios_of(items: list[Item], catalog) -> list:
    """Return the scenarios that the items are graded on, each once, in catalog order."""
    slug = {e.id: e.scenario.slug for e in catalog.exercises}
    slugs = {i.target if i.kind == WHOLE_PASS else slug[i.target] for i in items}
    return [s for s in catalog.scenarios if s.slug in slugs]


def _refused(learner: str, root: Path, parts: tuple[str, ...], why: str) -> Graded:
    """Return the row of an entry that is not graded, and why."""
    file = str(root.joinpath(*parts))
    end = "" if why.endswith("?") else "."
    return Graded(learner, parts[-1], "unknown", False, "refused", f"Not graded: {why}{end}", file)


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
    version = grader.catalog.get(item.target).version if item.kind == "exercise" else ""
    try:
        code = read_item(item)
    except BadInput as err:
        why = str(err)
        return Graded(
            item.learner, label, item.kind, False, "refused", why, str(item.file), version
        )
    for _ in range(BUSY_RETRIES):
        if item.kind == "exercise":
            result = grader.grade(item.target, code)
            solved = result.solved and not result.busy
            summary = feedback.batch_solved(item.target) if solved else result.summary_with_hint()
        else:
            result = grader.grade_pass(code, item.target)
            summary = result.message
        if not result.busy:
            break
        time.sleep(0.2)
    status = GRADER_FAILED if result.status == BUSY else result.status  # never graded, then
    file = str(item.file)
    flag = AUTOGRAD if result.failed_check == NO_AUTOGRAD else ""
    row = Graded(item.learner, label, item.kind, result.solved, status, summary, file, version)
    return replace(row, integrity=flag, late=_late(grader.catalog.course.deadline_of(label), item))


def _late(deadline, item: Item) -> bool:
    """Return whether the file was modified after its item's deadline (none: never late)."""
    return deadline is not None and item.mtime > deadline.timestamp()


def add_arguments(parser) -> None:
    """Add the arguments of `python -m grader grade-batch`."""
    parser.add_argument("folder", type=Path, help="a .py file or a folder per learner")
    parser.add_argument("--out", type=Path, default=Path("gradebook"), help="OUT.csv, OUT.json")
    parser.add_argument("--scenario", help="the whole pass a learner's .py is (default: first)")
    parser.add_argument("--data", help="default, names, or a word-list file (txt or csv)")
    parser.add_argument("--cache", type=Path, help="where names.txt is (default: var/cache)")
    parser.add_argument("--slots", type=_slots, default=2, help="runs at once, 1-16 (default 2)")
    parser.add_argument("--exercises", type=Path, help="another exercises folder (a course)")
    parser.add_argument("--roster", type=Path, help="a file of the expected learners, one a line")
    parser.add_argument(
        "--grade-sound",
        action="store_true",
        help="grade a course with problems: only the exercises that loaded (else exit 2)",
    )


def _slots(text: str) -> int:
    """Parse --slots: 1 to 16 runs at once."""
    if not text.isdigit() or not 1 <= int(text) <= 16:
        raise BadInput(f"--slots must be a number from 1 to 16, got {text!r}")
    return int(text)


def summary(rows: list[Graded], paths: tuple[Path, ...], seconds: float) -> list[str]:
    """Return the lines printed after a batch."""
    solved, learners = sum(r.solved for r in rows), len({r.learner for r in rows})
    return [
        f"{len(rows)} items of {learners} learners graded in {seconds:.1f} s, {solved} solved.",
        f"Gradebook: {', '.join(map(str, paths[:-1]))} and {paths[-1]}",
    ]


def run(catalog, dataset, items: list[Item], refused: list[Graded], args, book: Book = Book()):
    """Grade the items on a sandbox of args.slots slots; write the book; return rows, paths,
    seconds."""
    from grader.grading import Grader

    started = time.monotonic()
    sandbox, owned = start_sandbox(args.slots)
    try:
        grader = Grader(dataset, catalog, sandbox)
        rows = refused + grade_all(
            grader, items, args.slots, lambda k, n: progress_bar(k, n, started)
        )
    finally:
        if owned:
            sandbox.close()
    seconds = time.monotonic() - started
    info = {"dataset": dataset.name, "seconds": round(seconds, 2)} | book.info
    return rows, write_gradebook(rows, args.out, info, book), seconds


COLUMNS = ("learner", "item", "kind", "solved", "status", "summary", "file", "version")
COLUMNS += ("integrity", "late")
# A wide cell's status when a learner has two answers to one item: the better one counts.
RANK = ("", "refused", GRADER_FAILED, "not_solved", "solved")


def write_gradebook(
    rows: list[Graded], out: Path, info: dict, book: Book = Book()
) -> tuple[Path, Path, Path]:
    """Write <out>.csv (one row per item), <out>.wide.csv (one row per learner, a column per
    item of the course) and <out>.json (by learner), each whole or not at all (a temporary
    file renamed into place); return the three paths.

    Every text is shown inert (safetext.shown: no control character, no undecodable byte);
    a CSV cell that a spreadsheet would read as a formula starts with a quote (safetext.cell).
    Both CSVs start with a UTF-8 BOM.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    paths = out.with_suffix(".csv"), out.with_suffix(".wide.csv"), out.with_suffix(".json")
    info = {"graded_at": _now(), **info, "out_of": len(book.columns)}
    info["points_out_of"] = _number(sum(book.weights()))
    ordered = sorted((_inert(r) for r in rows), key=lambda r: (r.learner, r.item))
    learners: dict[str, list[Graded]] = {
        safetext.shown(n): [] for n in sorted({*book.learners, *(book.roster or ())})
    }
    for r in ordered:
        learners.setdefault(r.learner, []).append(r)
    learners = dict(sorted(learners.items()))
    _write_whole(paths[0], _long_csv(ordered))
    _write_whole(paths[1], _wide_csv(learners, book, info))
    document = {"schema": SCHEMA, **info, "learners": _learners_json(learners, book)}
    _write_whole(paths[2], json.dumps(document, indent=2, ensure_ascii=True))
    return paths


def _number(value: float) -> float | int:
    """Return a whole number of points as an int (3, not 3.0)."""
    return int(value) if float(value).is_integer() else round(value, 6)


def _now() -> str:
    """Return the time of grading, ISO 8601 in UTC to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _long_csv(ordered: list[Graded]) -> str:
    """Return the long CSV: one row per graded item."""
    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow(COLUMNS)
    for r in ordered:
        writer.writerow([safetext.cell(str(getattr(r, c))) for c in COLUMNS])
    return BOM + table.getvalue()


def _wide_csv(learners: dict[str, list[Graded]], book: Book, info: dict) -> str:
    """Return the wide CSV: one row per learner, a column per item of the course holding its
    status ("" when nothing was submitted), then solved, out_of and where the book is from."""
    table = io.StringIO()
    writer = csv.writer(table)
    tail = ("solved", "out_of", "points", "points_out_of", "integrity", "late", "graded_at")
    tail += ("course",)
    tail += ("course_version",)
    writer.writerow(["learner", *book.columns, *tail])
    course = info.get("course", {})
    for name, items in learners.items():
        cells = [_best(items, c) for c in book.columns]
        solved = sum(c == "solved" for c in cells)
        flags = "; ".join(f"{r.item}: {r.integrity}" for r in items if r.integrity)
        points = (_number(book.scored(items)), info["points_out_of"])
        late = "; ".join(r.item for r in items if r.late)
        own = (solved, len(book.columns), *points, flags, late, info["graded_at"])
        own += (course.get("id", ""),)
        row = [name, *cells, *own, course.get("version", "")]
        writer.writerow([safetext.cell(str(c)) for c in row])
    return BOM + table.getvalue()


def _best(items: list[Graded], column: str) -> str:
    """Return the best status a learner has for one item of the course ("" for none)."""
    return max((r.status for r in items if r.item == column), key=RANK.index, default="")


def _learners_json(learners: dict[str, list[Graded]], book: Book) -> list[dict]:
    """Return the JSON's learners: every learner, those who submitted nothing with no items."""
    roster = {safetext.shown(n) for n in book.roster} if book.roster is not None else None
    return [
        {
            "learner": name,
            "solved": sum(r.solved for r in items),
            "graded": sum(r.status != "refused" for r in items),
            "points": _number(book.scored(items)),
            **({} if roster is None else {"on_roster": name in roster}),
            "items": [asdict(r) for r in items],
        }
        for name, items in learners.items()
    ]


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


def progress_bar(done: int, total: int, started: float, stream=None) -> None:
    """Draw a one-line progress bar on stderr (the one in sys.stderr when drawn)."""
    stream = stream or sys.stderr
    width = 30
    filled = int(width * done / total) if total else width
    elapsed = time.monotonic() - started
    bar = "#" * filled + "-" * (width - filled)
    line = safetext.shown(f"[{bar}] {done}/{total} graded, {elapsed:.1f} s")
    print(f"\r{line}", end="", file=stream, flush=True)  # the bar's own return: it redraws
    if done == total:
        print(file=stream)
