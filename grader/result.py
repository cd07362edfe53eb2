"""What grading returns: plain, frozen data that the app and the CLI only render."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from grader.misconceptions import Remedy
from grader.sandbox import LearnerError

PASS, FAIL, SKIPPED = "pass", "fail", "skipped"
# A check that ran but cannot decide: the true gradient is below float noise on that case, so a
# later check (random upstream gradients) decides. It does not stop a solve.
INCONCLUSIVE = "inconclusive"
DECIDED_OR_OPEN = (PASS, INCONCLUSIVE)
# Each check's kind and display title, in the order grader/grading/pipeline.py's STEPS runs them.
TITLES = {
    "runs": "Runs within limits",
    "rules": "No autograd",
    "form": "Plain float tensor, exact shape, finite",
    "lecture": "Main batch, autograd's upstream gradients",
    "random": "Random upstream gradients",
    "sizes": "Other sizes",
}

# What a graded answer is, as every reader (the app, the gradebook, the JSON) stores it.
SOLVED, NOT_SOLVED, BUSY, GRADER_FAILED = "solved", "not_solved", "busy", "grader_failed"
NOT_RUN = ("runs", "rules")  # a failure of one of these: the code did not run, or was refused


def _status(solved: bool, busy: bool, fault: bool) -> str:
    """Return busy, grader_failed, solved or not_solved."""
    if busy:
        return BUSY
    if fault:
        return GRADER_FAILED
    return SOLVED if solved else NOT_SOLVED


@dataclass(frozen=True)
class Tally:
    """How much of an answer is right, as counts for partial credit: its gradients (a whole
    pass's, a multi-answer exercise's) right of those asked, and its checks passed of those in
    its list (one not run counts as not passed)."""

    right: int = 0
    parts: int = 0
    passed: int = 0
    checks: int = 0


def _passed(checks) -> int:
    """Return how many checks passed (an inconclusive one does not stop a solve)."""
    return sum(c.status in DECIDED_OR_OPEN for c in checks)


@dataclass(frozen=True)
class Check:
    """One check's outcome: `kind` names a step of the pipeline (grader/grading/pipeline.py)."""

    kind: str
    status: str
    message: str = ""
    hint: str = ""
    misconception: str = ""  # the id it found (grader/misconceptions.py), "" when none
    remedy: Remedy | None = None  # the change its sentence proposes, checked before it was said
    construct: str = ""  # the first construct outside the exercise language (a rules check)
    line: int | None = None  # the line of `construct`

    @property
    def title(self) -> str:
        """Return the check's display title."""
        return TITLES[self.kind]


@dataclass(frozen=True)
class Cmp:
    """The lecture's cmp line: exact (bitwise), approximate (allclose), max abs diff."""

    name: str
    exact: bool
    approx: bool
    maxdiff: float


@dataclass(frozen=True)
class Heatmap:
    """Arrays for a picture of where the values differ (2-D; a 1-D gradient is one row)."""

    learner: list
    reference: list
    diff: list
    rows: tuple[int, ...]
    cols: tuple[int, ...]
    case: str = "lecture"  # or "random": the lecture batch with random upstream gradients


@dataclass(frozen=True)
class Result:
    """The outcome of grading one answer to one exercise."""

    exercise: str
    answer: str
    solved: bool
    checks: tuple[Check, ...]
    cmp: Cmp | None = None
    heatmap: Heatmap | None = None
    error: LearnerError | None = None
    stdout: str = ""
    elapsed: float = 0.0
    busy: bool = False  # not graded: the grader's queue was full; nothing to record
    parts: tuple[Result, ...] = field(default=())  # one per answer, for several answers
    fault: bool = False  # the grader itself failed; says nothing about the code

    @property
    def failed(self) -> Check | None:
        """Return the first check that failed, if one did."""
        return next((c for c in self.checks if c.status == FAIL), None)

    @property
    def failed_check(self) -> str:
        """Return the kind of the first check that failed, or ""."""
        return self.failed.kind if self.failed else ""

    @property
    def misconception(self) -> str:
        """Return the id of the misconception the first failed check found, or ""."""
        return self.failed.misconception if self.failed else ""

    @property
    def refused_construct(self) -> str:
        """Return the construct outside the exercise language that refused the code, or ""."""
        return self.failed.construct if self.failed else ""

    @property
    def refused_line(self) -> int | None:
        """Return the line of `refused_construct`, or None."""
        return self.failed.line if self.failed else None

    @property
    def ran(self) -> bool:
        """Return whether the code ran and broke no rule, so its values were judged."""
        return not (self.busy or self.fault) and self.failed_check not in NOT_RUN

    @property
    def status(self) -> str:
        """Return solved, not_solved, busy or grader_failed."""
        return _status(self.solved, self.busy, self.fault)

    @property
    def tally(self) -> Tally:
        """Return its answers right of those asked (one, or one per part) and its checks passed."""
        parts = self.parts or (self,)
        checks = [c for p in parts for c in p.checks]
        return Tally(sum(p.solved for p in parts), len(parts), _passed(checks), len(checks))

    def summary(self) -> str:
        """Return the first failing check's message, or the success message."""
        return self.failed.message if self.failed else self.checks[-1].message

    def summary_with_hint(self) -> str:
        """Return the summary followed by the first failing check's hint, as it is recorded."""
        hint = self.failed.hint if self.failed else ""
        return f"{self.summary()} {hint}".strip()

    def to_dict(self) -> dict:
        """Return the result as JSON-ready data."""
        facts = {"ran": self.ran, "failed_check": self.failed_check, "status": self.status}
        refused = {"refused_construct": self.refused_construct, "refused_line": self.refused_line}
        return asdict(self) | facts | {"misconception": self.misconception} | refused


@dataclass(frozen=True)
class GradRow:
    """One gradient compared with autograd's: a row of a whole pass or of Exercise 4's check."""

    name: str
    status: str
    message: str
    cmp: Cmp | None = None
    shape: tuple[int, ...] | None = None  # shown where the page lists shapes (Exercise 4)
    checks: tuple[Check, ...] = field(default=())  # the pipeline's steps run on this gradient


@dataclass(frozen=True, kw_only=True)
class Facts:
    """What a graded pass says as fields (a PassResult's, Exercise 4's GradCheck's), by keyword."""

    ran: bool = False  # the code ran and broke no rule, so its gradients were compared
    failed_check: str = ""  # the kind of the check that failed first (the root cause's)
    misconception: str = ""  # the id that check found (grader/misconceptions.py)
    fault: bool = False  # the grader itself failed; says nothing about the code
    refused_construct: str = ""  # the first construct outside the exercise language, if refused
    refused_line: int | None = None  # its line


def facts_of(failed: Check | None, ran: bool = True) -> dict:
    """Return the Facts of a pass as keywords: whether the code ran, the failed check, its id,
    and the construct outside the exercise language that refused it."""
    if failed is None:
        return {"ran": ran}
    found = {"failed_check": failed.kind, "misconception": failed.misconception}
    return {"ran": ran, **found, "refused_construct": failed.construct, "refused_line": failed.line}


@dataclass(frozen=True)
class PassResult(Facts):
    """The outcome of grading a whole backward pass (the lecture's Exercise 1 cell)."""

    solved: bool
    header: dict
    rows: tuple[GradRow, ...]
    root_cause: str | None
    message: str
    error: LearnerError | None = None
    stdout: str = ""
    elapsed: float = 0.0
    sizes_message: str = ""
    notes: tuple[str, ...] = field(default=())
    busy: bool = False  # not graded: the grader's queue was full; nothing to record
    lines: tuple[tuple[str, str], ...] = field(default=())  # (gradient, the learner's lines)
    root_exercise: str = ""  # the step exercise asking for the root cause's gradient
    diagnosis: str = ""  # what that exercise says of the root cause's lines ("" if nothing)
    # With no root cause: the gradients right in value whose shape only broadcasts (the
    # lecture's own `dbnmeani`), so every value matches autograd's and only shapes are left
    shape_slips: tuple[str, ...] = field(default=())

    @property
    def status(self) -> str:
        """Return solved, not_solved, busy or grader_failed."""
        return _status(self.solved, self.busy, self.fault)

    @property
    def tally(self) -> Tally:
        """Return its gradients right of those asked and its checks passed: the run's two
        (runs, rules), each gradient's, and the other sizes' (passed when solved). A pass right
        on the main batch and wrong at other sizes has one gradient wrong at least, so it
        counts one short; one that did not run has nothing right."""
        if not self.rows:
            return Tally()
        right = sum(r.status != FAIL for r in self.rows)
        right -= int(right == len(self.rows) and not self.solved)
        checks = [c for r in self.rows for c in r.checks]
        passed = 2 + _passed(checks) + int(self.solved)
        return Tally(right, len(self.rows), passed, 3 + len(checks))

    def line_of(self, name: str) -> str:
        """Return the learner's lines that compute a gradient of the pass ('' if none)."""
        return dict(self.lines).get(name, "")

    def to_dict(self) -> dict:
        """Return the result as JSON-ready data."""
        return asdict(self) | {"status": self.status}


@dataclass(frozen=True)
class NotebookPart:
    """One exercise of a learner's notebook: where it was found and how it was graded."""

    number: int  # 1 to 4, the lecture's exercise
    title: str
    cell: int | None  # its cell's position in the notebook (1-based), None when there is none
    status: str  # solved, not_solved, unfilled, missing, grader_failed or busy
    summary: str
    result: object = None  # PassResult (1), Result (2 and 3) or training.records.GradCheck (4)


@dataclass(frozen=True)
class NotebookResult:
    """The outcome of grading a learner's Jupyter notebook of the lecture, part by part."""

    name: str
    parts: tuple[NotebookPart, ...]
    message: str
    header: dict
    scenario: str = ""  # the lecture's scenario, e.g. 01_mlp
    elapsed: float = 0.0

    @property
    def status(self) -> str:
        """Return grader_failed or busy if a part says so, else solved or not_solved."""
        statuses = {p.status for p in self.parts}
        for state in ("grader_failed", "busy"):
            if state in statuses:
                return state
        return "solved" if statuses == {"solved"} else "not_solved"

    @property
    def shapes_only(self) -> tuple[str, ...]:
        """Return the shape slips of Exercise 1 when they are all that is left to fix (every
        other part solved, every value of the whole pass right), else ()."""
        left = [p for p in self.parts if p.status != "solved"]
        if len(left) != 1 or left[0].status != "not_solved":
            return ()
        return getattr(left[0].result, "shape_slips", ())

    @property
    def solved(self) -> bool:
        """Return whether every exercise of the notebook is solved."""
        return self.status == "solved"
