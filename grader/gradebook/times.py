"""When each answer was submitted: a manifest the instructor passes (an LMS's submission export,
or a CSV of learner, item, time), else the file's own modification time, said so in the book.

A manifest is a CSV with a header, or a JSON list of objects (as an LMS's submissions API
returns them). Its columns are found by name, case aside:

    learner      learner, login_id, username, email, email address, full name, user, student
    item         item, exercise (optional: without it a row's time is the learner's for every item)
    time         submitted_at, submitted, time, timestamp, last modified (submission)

A time is ISO 8601 with its offset (2026-12-01T23:59:00Z) or Unix seconds; one without an
offset (ISO, or Moodle's "Tuesday, 1 December 2026, 11:59 PM") needs --timezone, never a guess.

    >>> manifest = read_manifest(Path("submissions.csv"))
    >>> stamped(items, manifest)[0].time_from
    'manifest'
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from grader.course import BadInput

MAX_MANIFEST_BYTES = 16 << 20
LEARNER = ("learner", "login_id", "username", "email", "email address", "full name", "user")
LEARNER += ("student",)
ITEM = ("item", "exercise")
TIME = ("submitted_at", "submitted", "time", "timestamp", "last modified (submission)")
MOODLE = "%A, %d %B %Y, %I:%M %p"  # the grading worksheet's English dates
EVERY = ""  # a row without an item: the learner's time for every item
MANIFEST, FILE = "manifest", "file"


@dataclass(frozen=True)
class Manifest:
    """Submission times by (learner, item), learner keys folded (case and spaces aside); item
    "" for a learner's time at every item."""

    times: dict[tuple[str, str], float]
    path: str = ""

    def time_of(self, learner: str, item: str) -> float | None:
        """Return a learner's time for an item: its own row, else the learner's row."""
        key = _fold(learner)
        return self.times.get((key, item), self.times.get((key, EVERY)))


def read_manifest(path: Path, zone: str | None = None) -> Manifest:
    """Read a manifest (CSV or JSON); BadInput naming the row of any bad time or a missing
    column, so that no time is ever guessed."""
    text = _text(path)
    tz = _zone(zone)
    records = _records(text, path)
    if not records:
        raise BadInput(f"--manifest {path} holds no submissions")
    columns = {c.strip().lower(): c for c in records[0]}
    learner, time = _column(columns, LEARNER, path, "learner"), _column(columns, TIME, path, "time")
    item = next((columns[c] for c in ITEM if c in columns), None)
    times = {}
    for number, record in enumerate(records, start=2):
        who = str(record.get(learner) or "").strip()
        if not who:
            continue
        what = str(record.get(item) or "").strip() if item else EVERY
        when = _time(record.get(time), tz, f"--manifest {path}: row {number}")
        if when is not None:
            times[(_fold(who), what)] = max(when, times.get((_fold(who), what), when))
    return Manifest(times, str(path))


def stamped(items: list, manifest: Manifest | None) -> list:
    """Return the items with their submission time: the manifest's where it has one (the
    item's row, else the learner's), else the file's own modification time, said so."""
    found = []
    for item in items:
        label = item.target if item.kind == "exercise" else f"whole_pass:{item.target}"
        when = manifest.time_of(item.learner, label) if manifest else None
        source = MANIFEST if when is not None else FILE
        found.append(
            replace(item, submitted=item.mtime if when is None else when, time_from=source)
        )
    return found


def _text(path: Path) -> str:
    """Return a manifest's text (UTF-8, a BOM allowed); BadInput if it cannot be read."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_MANIFEST_BYTES + 1)
    except OSError as err:
        raise BadInput(f"--manifest {path} cannot be read: {err.strerror}") from None
    if len(raw) > MAX_MANIFEST_BYTES:
        raise BadInput(f"--manifest {path} is larger than {MAX_MANIFEST_BYTES >> 20} MiB")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadInput(f"--manifest {path} is not UTF-8 text") from None


def _records(text: str, path: Path) -> list[dict]:
    """Return a manifest's records: a JSON list of objects (a user object's login_id read as
    its learner), or a CSV's rows."""
    if text.lstrip().startswith("["):
        try:
            found = json.loads(text)
        except ValueError as err:
            raise BadInput(f"--manifest {path} is not valid JSON: {err}") from None
        return [_flat(r) for r in found if isinstance(r, dict)]
    try:
        return list(csv.DictReader(io.StringIO(text)))
    except csv.Error as err:
        raise BadInput(f"--manifest {path} is not a CSV file: {err}") from None


def _flat(record: dict) -> dict:
    """Return a JSON record with its user's login (an LMS's submission nests the user)."""
    user = record.get("user")
    if isinstance(user, dict) and "learner" not in record:
        login = user.get("login_id") or user.get("email") or user.get("name")
        return {k: v for k, v in record.items() if k != "user"} | {"learner": login}
    return record


def _column(columns: dict[str, str], names: tuple[str, ...], path: Path, what: str) -> str:
    """Return the header of the first known column for `what`; BadInput naming them if none."""
    found = next((columns[c] for c in names if c in columns), None)
    if found is None:
        raise BadInput(
            f"--manifest {path} has no {what} column (one of: {', '.join(names)}); "
            f"its columns: {', '.join(columns.values())}"
        )
    return found


def _zone(name: str | None) -> ZoneInfo | None:
    """Return the --timezone for times written without an offset; BadInput if unknown."""
    if name is None:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadInput(f"--timezone {name!r} is not a time zone (e.g. Europe/Paris)") from None


def _time(value, tz: ZoneInfo | None, where: str) -> float | None:
    """Return a time in seconds since the epoch (None for an empty cell: not submitted)."""
    text = str(value).strip() if value is not None else ""
    if not text or text == "-":
        return None
    if text.replace(".", "", 1).isdigit():
        return float(text)
    when = _parsed(text)
    if when is None:
        raise BadInput(f"{where}: {text!r} is not a time (ISO 8601, e.g. 2026-12-01T23:59:00Z)")
    if when.tzinfo is None and tz is None:
        raise BadInput(f"{where}: {text!r} has no offset; give its --timezone (e.g. Europe/Paris)")
    return (when if when.tzinfo else when.replace(tzinfo=tz)).timestamp()


def _parsed(text: str) -> datetime | None:
    """Read ISO 8601 (an offset or Z allowed), else Moodle's English date."""
    for read in (datetime.fromisoformat, lambda t: datetime.strptime(t, MOODLE)):
        try:
            return read(text)
        except ValueError:
            continue
    return None


def _fold(name: str) -> str:
    """Return a learner's key: spaces around and case aside."""
    return name.strip().casefold()
