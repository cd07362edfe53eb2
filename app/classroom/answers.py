"""Every answer the class recorded, with the regrades of each, for the gradebook: the one
scoring function (grader/gradebook/policy.py) picks the answer that counts per learner and item
under the course's policy, and marks the cells a regrade changed.

A part of the store (app/storage's `Part`), beside the dashboard's other queries. A regrade
(`python -m app.regrade --apply`) records the same answer again (its code and time) with the
new verdict and origin `regrade`; here it is joined back to the answer it regrades, so that an
answer's verdicts are a history, never two answers.

    >>> facts = gradebook_facts(Answers(store).class_answers(), names)
"""

from __future__ import annotations

from dataclasses import dataclass

from app.storage import REGRADE, Part

# Each answer, and for a regrade the first answer it regrades (same learner, exercise, code and
# time, not itself a regrade).
ANSWERS = """
SELECT a.id, a.profile_id, a.exercise_id, a.solved, a.status, a.summary, a.failed_check,
    a.version, a.origin, a.created_at, a.parts_right, a.parts, a.checks_passed, a.checks,
    CASE WHEN a.origin = :regrade THEN (
        SELECT MIN(o.id) FROM attempts o WHERE o.course_id = a.course_id
            AND o.profile_id = a.profile_id AND o.exercise_id = a.exercise_id
            AND o.created_at = a.created_at AND o.code = a.code AND o.origin <> :regrade)
    END
FROM attempts a WHERE a.course_id = :course
ORDER BY a.id
"""


@dataclass(frozen=True)
class Answer:
    """One recorded verdict of an answer: whose, which item, its facts, its time; `regrades`
    names the answer a regrade graded again (None for an answer of its own)."""

    id: int
    profile_id: int
    exercise_id: str
    solved: bool
    status: str
    summary: str
    failed_check: str
    version: str
    origin: str
    created_at: float
    tally: tuple[int, int, int, int]
    regrades: int | None


class Answers(Part):
    """The store's call for the gradebook: every verdict recorded in its course."""

    def class_answers(self) -> list[Answer]:
        """Return every recorded verdict of the course, oldest first."""
        with self._db() as db:
            rows = db.execute(ANSWERS, {"course": self.course, "regrade": REGRADE}).fetchall()
        return [_answer(r) for r in rows]

    def answers_of(self, profile_ids: list[int], item: str) -> list[Answer]:
        """Return the recorded verdicts of some profiles at one item, oldest first (a learner's
        mark of that item, sent to their LMS: app/classroom/lti/later.py)."""
        if not profile_ids:
            return []
        where = {f"p{i}": p for i, p in enumerate(profile_ids)}
        among = ", ".join(f":{k}" for k in where)
        query = ANSWERS.replace(
            "ORDER BY", f"AND a.exercise_id = :item AND a.profile_id IN ({among}) ORDER BY"
        )
        args = {"course": self.course, "regrade": REGRADE, "item": item} | where
        with self._db() as db:
            rows = db.execute(query, args).fetchall()
        return [_answer(r) for r in rows]


def _answer(r) -> Answer:
    return Answer(*r[:3], bool(r[3]), *r[4:10], tuple(r[10:14]), r[14])


def gradebook_facts(answers: list[Answer], names: dict[int, str]) -> list[dict]:
    """Return the gradebook's facts (grader.gradebook.gradebook_files' plain data): one per
    answer of a learner named, its regrades after it, oldest first."""
    later: dict[int, list[Answer]] = {}
    for a in answers:
        if a.regrades is not None:
            later.setdefault(a.regrades, []).append(a)
    return [
        _fact(a, names[a.profile_id]) | {"regrades": [_fact(r, "") for r in later.get(a.id, [])]}
        for a in answers
        if a.profile_id in names and a.regrades is None
    ]


def _fact(a: Answer, learner: str) -> dict:
    """Return one verdict as the gradebook's plain data."""
    return {
        "learner": learner,
        "item": a.exercise_id,
        "status": a.status or ("solved" if a.solved else "not_solved"),
        "summary": a.summary,
        "source": f"{a.origin} attempt #{a.id}",
        "version": a.version,
        "failed_check": a.failed_check,
        "at": a.created_at,
        "tally": a.tally,
    }
