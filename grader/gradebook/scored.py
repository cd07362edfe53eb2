"""The scoring function's outcome as the book writes it: each row's lateness, the marks (the
scored cells) and the policy as JSON and CSV text, and the book's own notes (where the times
came from, a reference answer that fails), so that every route writes them alike."""

from __future__ import annotations

from dataclasses import asdict, replace
from datetime import UTC, datetime

from grader.gradebook.policy import Mark, due_for, lateness

FROM_FILES = (
    "Submission times of {count} answer(s) came from the file system (each file's modification "
    "time): a copy that did not keep them (cp -r, a zip's extraction) changes who is late. "
    "Pass --manifest with the LMS's submission times."
)
REFERENCE_FAILS = (
    "`{item}` fails its proof ({problem}): its reference answer may be wrong, so may its "
    "verdicts, and its reveal may show learners a wrong answer."
)
NOT_PROVEN = "`{item}` is not proven yet (its reference answer has not been graded)."


def iso(when: float | datetime | None) -> str:
    """Return a time as ISO 8601 in UTC to the second ("" for none)."""
    if when is None:
        return ""
    moment = when if isinstance(when, datetime) else datetime.fromtimestamp(when, UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def with_lateness(rows: list, course, columns: tuple[str, ...]) -> list:
    """Return the rows with `late` set: after the learner's due time for the item (their
    extension, else the item's deadline); a row at no item of the course is never late."""
    return [replace(r, late=_late(r, course) if r.item in columns else False) for r in rows]


def _late(row, course) -> bool:
    """Return whether a row came after its learner's due time for its item."""
    due, _ = due_for(course, row.learner, row.item)
    return lateness(row.submitted_at, due, course.grading)[0] > 0


def was(row) -> str:
    """Return `status@version` of this answer's first verdict when a regrade changed its
    status since ("" otherwise)."""
    first = row.history[0] if row.history else None
    return f"{first.status}@{first.version}" if first and first.status != row.status else ""


def cell(row, column: str) -> str:
    """Return a long CSV cell of a row: a time as ISO 8601, `was` as above, others as text."""
    if column == "submitted_at":
        return iso(row.submitted_at)
    if column == "was":
        return was(row)
    return str(getattr(row, column))


def item_json(row) -> dict:
    """Return a row as the JSON's item: its time as ISO 8601, its history as verdicts."""
    return asdict(row) | {"submitted_at": iso(row.submitted_at)}


def mark_json(mark: Mark) -> dict:
    """Return a scored cell as the JSON's mark."""
    was = mark.was
    return {
        "item": mark.item,
        "status": mark.status,
        "version": mark.version,
        "file": mark.source,
        "credit": mark.credit,
        "late_days": mark.late_days,
        "kept_late": mark.kept_late,
        "points": number(mark.points),
        "out_of": number(mark.out_of),
        "due": iso(mark.due),
        "extended": mark.extended,
        "regraded": was is not None,
        "was_status": was.status if was else "",
        "was_version": was.version if was else "",
        "credit_kept": mark.credit_kept,
    }


def regraded(marks: list[Mark]) -> str:
    """Return the wide CSV's `regraded` cell: each cell a regrade changed, was -> now."""
    return "; ".join(
        f"{m.item}: {m.was.status}@{m.was.version} -> {m.status}@{m.version}"
        + (" (credit kept)" if m.credit_kept else "")
        for m in marks
        if m.was is not None
    )


def policy_json(course) -> dict:
    """Return the policy the book was scored with, stated in the book."""
    return asdict(course.grading) | {"extensions": len(course.extensions)}


def notes(rows: list, failing: dict[str, str]) -> list[str]:
    """Return the book's notes: answers whose time came from the file system, and each
    exercise whose reference answer fails (or is not proven yet)."""
    found = []
    from_files = sum(r.time_from == "file" for r in rows)
    if from_files:
        found.append(FROM_FILES.format(count=from_files))
    for item, problem in sorted(failing.items()):
        text = NOT_PROVEN if not problem else REFERENCE_FAILS
        found.append(text.format(item=item, problem=problem))
    return found


def learner_notes(rows: list) -> str:
    """Return the wide CSV's `notes` cell of one learner: times read from files, and the items
    whose reference answer fails."""
    found = ["times from the file system"] if any(r.time_from == "file" for r in rows) else []
    found += sorted({f"{r.item}: fails its proof" for r in rows if r.reference_fails})
    return "; ".join(found)


def number(value: float) -> float | int:
    """Return a whole number as an int (3, not 3.0)."""
    return int(value) if float(value).is_integer() else round(value, 6)
