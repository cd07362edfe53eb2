"""Grade a class at once: one file or folder per learner in, a gradebook (CSV and JSON) out.

Layout of the folder given to `python -m grader grade-batch DIR`:

    DIR/ada.py                    a whole pass (the scenario given by --scenario, else the first)
    DIR/grace/dlogprobs.py        an answer to one exercise: the file is named by the exercise id
    DIR/grace/whole_pass.py       a whole pass; whole_pass_<slug>.py for another scenario

A file is read without following a link (classfolder.py); learner code runs only in the sandbox.
A learner is named by the key of their file's or folder's name (learners.py: NFKC, invisible
characters removed), so `ada` and `ada` with a zero-width space are one learner.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from grader.course import BadInput
from grader.gradebook import classfolder
from grader.gradebook.book import WHOLE_PASS, Graded
from grader.gradebook.learners import key

MAX_ANSWER_BYTES = 4 << 20


MAX_ROSTER_BYTES = 1 << 20


UNKNOWN = "not an exercise id or whole_pass"


NOT_AN_ENTRY = (  # a file in DIR that is not a learner's whole pass: not .py, or no whole pass
    "not a .py file or a learner's folder",
    "the course has no whole pass: a learner's answers go in a folder named after them",
)


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
    mtime: float = 0.0  # the file's modification time, its submission time without a manifest
    submitted: float | None = None  # when it was submitted (times.py: a manifest's, else mtime)
    time_from: str = ""  # where `submitted` is from: "manifest" or "file"

    @property
    def file(self) -> Path:
        """Return the file's path, for the gradebook."""
        return self.root.joinpath(*self.parts)


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
            names.add(key(entry.name))
        if entry.kind == classfolder.FILE and entry.name.endswith(".py") and default_scenario:
            where, who = (entry.name,), key(entry.name[:-3])
            item = Item(who, WHOLE_PASS, default_scenario, folder, where, entry.mtime)
            items.append(item)
        elif entry.kind == classfolder.FOLDER:
            unknown = UNKNOWN_IN_BROKEN if catalog.errors else UNKNOWN
            found = _learner(folder, entry.name, (ids, slugs, unknown), default_scenario)
            items += [f for f in found if isinstance(f, Item)]
            refused += [f for f in found if isinstance(f, Graded)]
        else:
            why = entry.why or NOT_AN_ENTRY[entry.name.endswith(".py")]
            refused.append(_refused(key(Path(entry.name).stem), folder, (entry.name,), why))
    if not items and not refused and not names:
        raise BadInput(f"{folder} holds no submissions (a .py file or a folder per learner)")
    return items, refused, sorted(names | {i.learner for i in items} | {r.learner for r in refused})


def _learner(folder: Path, learner: str, known: tuple, default: str) -> list:
    """Return the Items of one learner's folder, and a Graded row for each entry refused;
    known: the exercise ids, the scenarios with a whole pass, and what an unknown name is."""
    ids, slugs, unknown = known
    who = key(learner)
    try:
        entries = classfolder.listing(folder, (learner,))
    except classfolder.Refused as err:
        return [_refused(who, folder, (learner,), str(err))]
    found = []
    for entry in entries:
        where = (learner, entry.name)
        if entry.kind == classfolder.FILE:
            item = _item(folder, where, ids, slugs, default)
            item = item and replace(item, mtime=entry.mtime)
            why = unknown + did_you_mean(entry.name, ids)
            found.append(_refused(who, folder, where, why) if item is None else item)
        elif entry.kind == classfolder.FOLDER:
            found.append(_refused(who, folder, where, "a folder inside a learner's folder"))
        else:
            found.append(_refused(who, folder, where, entry.why))
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
    return Item(key(learner), kind, target, root, where)


def did_you_mean(name: str, ids: Iterable[str]) -> str:
    """Return "; did you mean `dW2`?" for a file named like an exercise id, else ""."""
    stem = name[:-3] if name.endswith(".py") else name
    by_case = {i.lower(): i for i in ids}
    close = by_case.get(stem.lower()) or next(
        iter(difflib.get_close_matches(stem.lower(), list(by_case), n=1, cutoff=0.8)), None
    )
    return f"; did you mean `{by_case.get(close, close)}.py`?" if close else ""


def read_roster(path: Path) -> tuple[str, ...]:
    """Return the learners of a roster file: one name per line (UTF-8, a BOM allowed; blank
    lines and lines starting with # left out), each as its learner key (the book is keyed by
    the roster's names); BadInput if it cannot be read."""
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
    return tuple(dict.fromkeys(key(n) for n in names if n and not n.startswith("#")))


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


def answer_text(raw: bytes, where: str) -> str:
    """Decode an answer as UTF-8 Python source; refuse binary or oversized input."""
    if len(raw) > MAX_ANSWER_BYTES:
        raise BadInput(f"{where} is larger than {MAX_ANSWER_BYTES >> 20} MiB; it is not an answer")
    if b"\0" in raw:
        raise BadInput(f"{where} is a binary file, not Python code")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        byte = f"byte {err.start} is {raw[err.start]:#04x}"
        raise BadInput(f"{where} is not UTF-8 text ({byte})") from None
