"""A course's grading policy: `[grading]` of course.toml (partial credit, late work, regrades)
and the per-learner extensions of its deadlines (`extensions.csv`, beside course.toml).

    [grading]
    partial_credit = "per_gradient"   # "none" (the default), "per_gradient" or "per_check"
    late = "per_day"                  # "none" (the default: flagged only), "per_day", "cutoff"
    late_percent_per_day = 10         # per_day: the credit lost per day late, a day begun counts
    late_floor_percent = 50           # per_day: late work keeps at least this much of its credit
    regrades = "keep_credit"          # "latest" (the default) or "keep_credit"

    extensions.csv:
    learner,item,due,days
    ada,dh,2026-12-03T23:59:00Z,
    grace,*,,2

Every key and column is checked where it is read, and a misspelt one is told the one it may
mean; grader/gradebook/policy.py applies the policy (the one scoring function).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from grader.course.schema import SchemaError, did_you_mean, require

NONE, PER_GRADIENT, PER_CHECK = "none", "per_gradient", "per_check"
PER_DAY, CUTOFF = "per_day", "cutoff"
LATEST, KEEP_CREDIT = "latest", "keep_credit"
CHOICES = {
    "partial_credit": (NONE, PER_GRADIENT, PER_CHECK),
    "late": (NONE, PER_DAY, CUTOFF),
    "regrades": (LATEST, KEEP_CREDIT),
}
EXTENSIONS = "extensions.csv"
EVERY_ITEM = "*"
MAX_EXTENSIONS_BYTES = 1 << 20


@dataclass(frozen=True)
class Grading:
    """How a course turns verdicts into points: partial credit for a multi-part item (none, per
    gradient right, per check passed), late work (none: flagged only; per_day: a percentage
    lost per day begun, down to a floor; cutoff: nothing), and whether a regrade may take
    credit away (latest) or never does (keep_credit)."""

    partial_credit: str = NONE
    late: str = NONE
    late_percent_per_day: float = 10.0
    late_floor_percent: float = 0.0
    regrades: str = LATEST


@dataclass(frozen=True)
class Extension:
    """A learner's own deadline for an item (or for every item, `*`): a new time, or days
    added to the item's deadline."""

    learner: str
    item: str
    due: datetime | None = None
    days: float = 0.0
    line: int = 0  # its line in extensions.csv, for a message


NUMBERS = ("late_percent_per_day", "late_floor_percent")


def read_grading(raw, where: str) -> tuple[Grading, tuple[SchemaError, ...]]:
    """Read the `[grading]` table: each bad key is refused on its own (named, with the key it
    may mean) and the others kept."""
    if not isinstance(raw, dict):
        return Grading(), (SchemaError(where, "must be a table ([grading])"),)
    kept, problems = {}, []
    for key, value in raw.items():
        try:
            kept[key] = _grading_key(key, value, where)
        except SchemaError as err:
            problems.append(err)
    grading = Grading(**kept)
    for key in (k for k in NUMBERS if k in kept and grading.late != PER_DAY):
        problems.append(SchemaError(f"{where}.{key}", f'counts only with late = "{PER_DAY}"'))
    return grading, tuple(problems)


def _grading_key(key: str, value, where: str):
    """Return one key's value, checked: a known key, one of its words or a percentage."""
    at, known = f"{where}.{key}", (*CHOICES, *NUMBERS)
    unknown = f"unknown key (known keys: {', '.join(sorted(known))}){did_you_mean(key, known)}"
    require(key in known, at, unknown)
    if key in CHOICES:
        _choice(value, CHOICES[key], at)
    else:
        _percent(value, key, at)
    return value


def _choice(value, allowed: tuple[str, ...], where: str) -> None:
    """Require one of the allowed words, saying which one a misspelt value may mean."""
    near = did_you_mean(str(value), allowed)
    require(value in allowed, where, f"must be one of {', '.join(allowed)}, got {value!r}{near}")


def _percent(value, key: str, where: str) -> None:
    """Require a percentage: above 0 for the daily loss, below 100 for the floor."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    ok = ok and (0 < value <= 100 if key == "late_percent_per_day" else 0 <= value < 100)
    rule = "above 0, at most 100" if key == "late_percent_per_day" else "at least 0, below 100"
    require(ok, where, f"must be a percentage {rule}, got {value!r}")


def read_extensions(root: Path) -> tuple[tuple[Extension, ...], tuple[SchemaError, ...]]:
    """Return the extensions of a course folder (none without the file) and the problems of
    its rows, each naming the row; a row with a problem is left out, the others kept."""
    path = root / EXTENSIONS
    if not path.exists():
        return (), ()
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_EXTENSIONS_BYTES + 1)
        require(len(raw) <= MAX_EXTENSIONS_BYTES, str(path), "is larger than 1 MiB")
        rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        return (), (SchemaError(str(path), f"cannot be read as UTF-8 CSV: {err}"),)
    except SchemaError as err:
        return (), (err,)
    header = _header(rows, path)
    if header:
        return (), (header,)
    found, problems, seen = [], [], set()
    for number, row in enumerate(rows, start=2):  # the header is line 1
        try:
            one = replace(_extension(row, f"{path}: line {number}"), line=number)
            require((one.learner, one.item) not in seen, f"{path}: line {number}", "repeats one")
        except SchemaError as err:
            problems.append(err)
            continue
        seen.add((one.learner, one.item))
        found.append(one)
    return tuple(found), tuple(problems)


COLUMNS = ("learner", "item", "due", "days")


def _header(rows: list[dict], path: Path) -> SchemaError | None:
    """Return the problem of a header without learner and item or with an unknown column."""
    names = [n for n in (rows[0] if rows else {}) if n is not None]
    for name in names:
        if name.strip() not in COLUMNS:
            known = f"known columns: {', '.join(COLUMNS)}{did_you_mean(name.strip(), COLUMNS)}"
            return SchemaError(f"{path}: {name}", f"unknown column ({known})")
    missing = [c for c in ("learner", "item") if rows and c not in names]
    return SchemaError(str(path), f"needs the columns {', '.join(missing)}") if missing else None


def _extension(row: dict, where: str) -> Extension:
    """Read one row: a learner, an item (or `*`), and a new deadline or a number of days."""
    cells = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
    require(None not in row, where, "has more cells than the header")
    learner, item = cells.get("learner", ""), cells.get("item", "")
    require(learner and item, where, "needs a learner and an item (or `*` for every item)")
    due, days = cells.get("due", ""), cells.get("days", "")
    require(bool(due) != bool(days), where, "gives a new deadline in `due` or a number of `days`")
    if due:
        return Extension(learner, item, due=_time(due, where))
    return Extension(learner, item, days=_days(days, where))


def _time(text: str, where: str) -> datetime:
    """Read an ISO 8601 time with its offset (2026-12-03T23:59:00Z)."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        when = None
    ok = when is not None and when.tzinfo is not None
    require(
        ok, f"{where}: due", f"must be a time with an offset (2026-12-03T23:59:00Z), got {text}"
    )
    return when


def _days(text: str, where: str) -> float:
    """Read a number of days above 0 (1.5 is a day and a half)."""
    try:
        days = float(text)
    except ValueError:
        days = 0.0
    require(0 < days < 3660, f"{where}: days", f"must be a number of days above 0, got {text}")
    return days
