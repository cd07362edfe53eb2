"""What a re-grade did to each learner's attempts, in the store's audit log (the entries'
detail: the profiles, the exercises, how many attempts were graded again, changed, recorded)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.storage import auditlog

if TYPE_CHECKING:
    from app.regrade.report import Change
    from app.storage import Profile, Store


def record(store: Store, whose: list[Profile], changes: list[Change], applied: bool) -> None:
    """Record one `regrade` entry per learner whose attempts were read and graded again (the
    profile of each change, in order; a dry run reads them too: `applied` says whether the new
    verdicts were recorded)."""
    details: dict[str, dict] = {}
    for profile, change in zip(whose, changes, strict=True):
        found = details.setdefault(
            profile.owner,
            {"applied": applied, "profiles": [], "exercises": [], "attempts": 0}
            | {"changed": 0, "recorded": 0},
        )
        found["profiles"] = sorted({*found["profiles"], profile.id})
        found["exercises"] = sorted({*found["exercises"], change.exercise})
        found["attempts"] += 1
        found["changed"] += change.changed
        found["recorded"] += change.recorded
    store.audit.record_many(auditlog.command_line(), auditlog.REGRADE, details)
