"""What `python -m app.regrade` found: one Change per attempt graded again, printed as a table
or as one JSON document (schema `backprop-ninja/regrade/1`, docs/gradebook.md)."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass

SCHEMA = "backprop-ninja/regrade/1"
NOT_A_VERDICT = "grader_failed"  # the grader failed (or stayed busy): nothing is recorded


@dataclass(frozen=True)
class Change:
    """One stored attempt graded again: whose, which exercise, when it was answered, the verdict
    (a status: solved, not_solved) and the exercise's version then and now."""

    learner: str
    profile_id: int
    exercise: str
    answered_at: float
    old_status: str
    new_status: str
    old_version: str
    new_version: str
    recorded: bool = False  # --apply recorded the new verdict as a new attempt
    skipped: str = ""  # why it was not graded again ("" when it was)

    @property
    def changed(self) -> bool:
        """Return whether the verdict changed."""
        return bool(self.new_status) and self.old_status != self.new_status

    @property
    def failed(self) -> bool:
        """Return whether the grader failed on it (no new verdict)."""
        return self.new_status == NOT_A_VERDICT


def report(changes: list[Change], course: str, applied: bool, as_json: bool) -> None:
    """Print every change, then the totals (or one JSON document)."""
    if as_json:
        print(json.dumps(document(changes, course, applied), indent=2, ensure_ascii=True))
        return
    for change in changes:
        print(inert(line(change)))
    print(inert(totals(changes, course, applied)))


def document(changes: list[Change], course: str, applied: bool) -> dict:
    """Return the JSON document of a re-grade."""
    return {
        "schema": SCHEMA,
        "course": course,
        "applied": applied,
        "regraded": sum(1 for c in changes if not c.skipped),
        "changed": sum(c.changed for c in changes),
        "attempts": [asdict(c) | {"changed": c.changed} for c in changes],
    }


def line(change: Change) -> str:
    """Return one attempt's line: learner, exercise, answered at, old -> new, versions."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(change.answered_at))
    who = f"{change.learner} (#{change.profile_id})"
    if change.skipped:
        return f"{who}  {change.exercise}  {when}  not re-graded: {change.skipped}"
    mark = "" if change.changed else "  (unchanged)"
    versions = f"version {change.old_version or '(unknown)'} -> {change.new_version}"
    verdicts = f"{change.old_status} -> {change.new_status}"
    return f"{who}  {change.exercise}  {when}  {verdicts}  {versions}{mark}"


def totals(changes: list[Change], course: str, applied: bool) -> str:
    """Return the closing line: how many, how many changed, and whether anything was kept."""
    if not changes:
        return f"Course {course}: no attempt to re-grade (every one answered the current version)."
    graded = [c for c in changes if not c.skipped]
    changed = sum(c.changed for c in changes)
    now = sum(c.changed and c.new_status == "solved" for c in changes)
    lost = sum(c.changed and c.old_status == "solved" for c in changes)
    done = (
        f"{_count(sum(c.recorded for c in changes), 'new verdict')} recorded (the old attempts "
        "kept)."
        if applied
        else "Dry run: nothing recorded; --apply records the new verdicts."
    )
    return (
        f"Course {course}: {_count(len(graded), 'attempt')} re-graded, {changed} changed ({now} "
        f"now solved, {lost} no longer solved), {len(changes) - len(graded)} not re-graded. {done}"
    )


def _count(number: int, noun: str) -> str:
    """Return "1 attempt", "2 attempts"."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def inert(text: str) -> str:
    """Return text with every control character escaped, to print it safely."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
