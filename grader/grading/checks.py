"""The checks, one function each, every one judging a `Subject` (their order: pipeline.py)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import torch

from grader import misconceptions as m
from grader.course import Problem, rules
from grader.feedback import detectors, diagnose
from grader.feedback import voice as feedback
from grader.grading import hints, rewritten
from grader.grading.cases import ALT, LECTURE, RANDOM, scope_names
from grader.grading.hints import Clues
from grader.language import LANGUAGE, Language, Refusal
from grader.misconceptions import Found
from grader.result import FAIL, INCONCLUSIVE, PASS, SKIPPED, Check, Cmp, LearnerError
from grader.sandbox import Case, CaseOutcome, Returned, RunOutcome

FLOAT_DTYPES = (torch.float32, torch.float64)


@dataclass(frozen=True)
class Source:
    """The learner's code as read before running: its tree, or why it cannot run."""

    tree: ast.Module | None = None
    unparsed: Problem | None = None  # it does not parse
    outside: Refusal | None = None  # its first construct outside the exercise language
    code: str = ""  # the code as written (the feedback quotes it as written)

    @property
    def refused(self) -> bool:
        """Return whether the code is refused before it runs."""
        return self.unparsed is not None or self.outside is not None


def screen(code: str, language: Language = LANGUAGE) -> Source:
    """Parse the code and check it against the exercise language, before anything runs (the
    tree alone is read: nothing is executed)."""
    tree = rules.parse(code)
    if isinstance(tree, Problem):
        return Source(unparsed=tree, code=code)
    return Source(tree, outside=language.refusal(tree), code=code)


@dataclass(frozen=True)
class Subject:
    """One gradient as every check reads it: the source, the run and autograd's answers.

    Mappings are by case name (LECTURE, RANDOM, ALT). `row` asks for the sentences of a row of
    the lecture's cmp table (the whole pass, Exercise 4's check) rather than an exercise's
    ticks; `clues` holds, by case, what the hints (hints.py) read to name the misconception
    behind wrong values; `noise()` is the float noise under which the lecture batch cannot
    decide. The lecture's cmp line is computed once, here, for every reader (`lecture_cmp`).
    """

    name: str
    source: Source = field(default_factory=Source)
    outcome: RunOutcome | None = None
    cases: Mapping[str, Case] = field(default_factory=dict)
    expected: Mapping[str, torch.Tensor] = field(default_factory=dict)
    sizes: Mapping[str, dict] = field(default_factory=dict)
    drawn: frozenset[str] = frozenset()  # the cases with random upstream gradients
    row: bool = False
    base: tuple[float, float] | None = None
    exact_dtype: bool = False
    declared: str = ""
    upstream: tuple[tuple[int, ...], ...] = ()
    clues: Mapping[str, Clues] = field(default_factory=dict)
    noise: Callable[[], float] = lambda: 0.0

    def returned(self, case: str) -> tuple[CaseOutcome, Returned | None]:
        """Return a case's outcome and what the learner's code left in the gradient's name."""
        found = next(c for c in self.outcome.cases if c.name == case)
        return found, found.returned.get(self.name)

    @cached_property
    def lecture_cmp(self) -> Cmp | None:
        """Return the lecture's cmp line for an answer of the expected shape, else None."""
        got, expected = answer(self.outcome, LECTURE, self.name), self.expected.get(LECTURE)
        if got is None or expected is None or got.shape != expected.shape:
            return None
        return diagnose.compare(self.name, got.to(expected.dtype), expected, base=self.base)

    def hint(self, case: str, got: torch.Tensor | None) -> Found | None:
        """Return the misconception the hints recognise behind wrong values on a case."""
        return hints.find(case, got, self.clues.get(case), self.row)


def failed(kind: str, message: str, found: Found | None = None) -> Check:
    """Return a failed check with the hint sentence and id of the misconception found."""
    if found is None:
        return Check(kind, FAIL, message)
    return Check(kind, FAIL, message, feedback.hint(found), found.misconception, found.remedy)


def named(kind: str, say: Callable[[str], str], found: Found | None) -> Check:
    """Return a failed check whose message opens with the misconception found, `say(why)`
    putting the evidence after it; with nothing named, the evidence first and the hint after."""
    why = feedback.diagnosis(found)
    if not why:
        return failed(kind, say(""), found)
    return Check(kind, FAIL, say(why), "", found.misconception, found.remedy)


def parse_message(problem: Problem) -> str:
    """Return the message for code that does not parse: a syntax error says where."""
    if problem.line is None:
        return feedback.unreadable(problem.what)
    return feedback.syntax_error(problem.what, problem.line, problem.column)


def learner_error(outcome: RunOutcome) -> LearnerError | None:
    """Return the learner's exception that stopped the run (the other sizes aside)."""
    if outcome.status != "ok":
        return None
    return next((c.error for c in outcome.cases if c.error is not None and c.name != ALT), None)


def _autograd_at_run(outcome: RunOutcome | None) -> bool:
    """Return whether the run was stopped for reaching autograd."""
    return outcome is not None and outcome.autograd


def check_runs(s: Subject) -> Check:
    """Check 1: the code parses and ran every case without an exception, within the limits
    (skipped when it reaches autograd, which check 2 reports)."""
    if s.source.unparsed is not None:
        return Check("runs", FAIL, parse_message(s.source.unparsed))
    if s.source.outside is not None:
        return Check("runs", SKIPPED, feedback.skipped("it is refused before running"))
    if _autograd_at_run(s.outcome):
        return Check("runs", SKIPPED, feedback.skipped("autograd found"))
    if s.outcome.status != "ok":
        return Check("runs", FAIL, s.outcome.message)
    for case in s.outcome.cases:
        if case.error is not None and case.name != ALT:
            return _raised(case, s)
    return Check("runs", PASS, feedback.runs_ok())


def _raised(case: CaseOutcome, s: Subject) -> Check:
    """Describe the learner's exception, with the names they can use after a NameError."""
    err = case.error
    found = detectors.pytorch_error(err.type, err.message, s.sizes.get(case.name, {}))
    if err.type == "NameError" and case.name in s.cases:
        missing = err.message.split("'")[1] if "'" in err.message else "?"
        found = Found(m.UNKNOWN_NAME, (missing, scope_names(s.cases[case.name])))
    swapped = detectors.index_order(s.source.tree) if s.source.tree else None
    if found is not None and found.misconception == m.INDEX_OUT_OF_RANGE and swapped:
        found = Found(m.INDEX_ORDER, swapped)
    found = rewritten.for_error(found, err.line, s.clues.get(case.name))
    return named("runs", lambda why: feedback.raised(err.type, err.line, why), found)


def check_rules(s: Subject) -> Check:
    """Check 2: the exercise language, read before running (no autograd, nothing outside it),
    and no autograd caught while running."""
    if s.source.unparsed is not None:
        return Check("rules", SKIPPED, feedback.skipped("it does not parse"))
    if s.source.outside is not None:
        return refused(s.source.outside)
    if _autograd_at_run(s.outcome):
        return failed("rules", s.outcome.message, Found(m.AUTOGRAD))
    return Check("rules", PASS, feedback.rules_ok())


def refused(outside: Refusal) -> Check:
    """Return the failed rules check of code outside the exercise language, naming the construct
    and its line as fields (`construct`, `line`)."""
    where = (outside.construct, outside.line)
    if outside.autograd:
        message = feedback.uses_autograd(*where)
    else:
        message = feedback.outside_language(*where, dynamic=outside.dynamic)
    autograd = outside.autograd or outside.dynamic  # as before the language: autograd's id
    found = Found(m.AUTOGRAD) if autograd else Found(m.OUTSIDE_LANGUAGE, (outside.nearest,))
    hint = feedback.hint(found)
    construct, line = where
    return Check("rules", FAIL, message, hint, found.misconception, construct=construct, line=line)


def check_form(s: Subject) -> Check:
    """Check 3: defined, a plain float tensor (of the expected dtype when the exercise sets
    one), the exact shape, finite in every case graded; a row of the cmp table asks only for a
    tensor of the shape."""
    name, expected = s.name, s.expected[LECTURE]
    _, returned = s.returned(LECTURE)
    if returned is None or returned.tensor is None:
        problem = returned.problem if returned else "is not defined"
        if s.row:
            return Check("form", FAIL, feedback.not_tensor(name, problem))
        if problem in ("not defined", "is not defined"):
            return Check("form", FAIL, feedback.not_defined(name))
        return Check("form", FAIL, feedback.not_tensor(name, problem, expected.shape))
    got = returned.tensor
    wrong_dtype = got.dtype not in FLOAT_DTYPES or (s.exact_dtype and got.dtype != expected.dtype)
    if wrong_dtype and not s.row:
        return Check("form", FAIL, feedback.wrong_dtype(name, _dtype(got), _dtype(expected)))
    if got.shape != expected.shape:
        return _wrong_shape(s, got, expected)
    for tensor in () if s.row else _every_case(s):
        bad = ~torch.isfinite(tensor)
        if bool(bad.any()):
            index = tuple(int(i) for i in bad.nonzero()[0])
            message = feedback.not_finite(name, int(bad.sum()), index)
            return failed("form", message, Found(m.NON_FINITE))
    return Check("form", PASS, feedback.form_ok(name, got.shape))


def _every_case(s: Subject) -> list[torch.Tensor]:
    """Return the float answers of every case graded, the lecture batch's first (a nan on a
    random or other-sizes case is named here, before any maths reads it)."""
    found = [answer(s.outcome, case, s.name) for case in s.expected]
    return [t for t in found if t is not None and t.is_floating_point()]


def _wrong_shape(s: Subject, got: torch.Tensor, expected: torch.Tensor) -> Check:
    """Say the shape is wrong (an exercise names the sizes in it) and why it may be."""
    sizes = s.sizes.get(LECTURE)
    got = got.to(expected.dtype)
    found = detectors.shape_mismatch(got, expected, sizes, s.upstream, s.declared)
    found = rewritten.for_shape(found, got, None if s.row else s.clues.get(LECTURE))
    if found is not None and found.misconception == m.KEEPDIM_LOST and s.source.tree:
        own = detectors.lectures_own(s.source.tree, s.name)
        found = Found(found.misconception, (*found.args, own), remedy=found.remedy)
    shapes = ()
    if not s.row:
        shapes = (
            diagnose.named(got.shape, sizes or {}),
            diagnose.named(expected.shape, sizes or {}, s.declared),
        )
    return named(
        "form",
        lambda why: feedback.wrong_shape(s.name, got.shape, expected.shape, *shapes, why=why),
        found,
    )


def _dtype(t: torch.Tensor) -> str:
    """Name a dtype the way torch prints it."""
    return str(t.dtype)


def answer(outcome: RunOutcome | None, case: str, name: str) -> torch.Tensor | None:
    """Return the tensor the learner produced for one case, if any."""
    for c in outcome.cases if outcome is not None else ():
        if c.name == case and name in c.returned:
            return c.returned[name].tensor
    return None


def check_lecture(s: Subject) -> Check:
    """Check 4: the lecture batch with autograd's upstream gradients (the cmp line).

    Where the true gradient is no larger than float noise (`s.noise()`), the lecture batch
    cannot tell a right answer from a wrong one of the same size: the check is inconclusive
    and the random upstream gradients decide.
    """
    name, expected = s.name, s.expected[LECTURE]
    raw = answer(s.outcome, LECTURE, name)
    got = raw.to(expected.dtype)
    cmp = s.lecture_cmp
    if cmp.approx:
        exact = cmp.exact and not s.row  # a row says what the lecture's cmp line says
        message = feedback.exact(name) if exact else feedback.looks_good(name, cmp.maxdiff)
        return Check("lecture", PASS, message)
    if diagnose.below_noise(got, expected, s.noise()):
        largest = float(expected.abs().max()) if expected.numel() else 0.0
        return Check("lecture", INCONCLUSIVE, feedback.inconclusive(name, largest))
    index, tol = diagnose.worst_index(raw, expected), diagnose.tolerance(expected, base=s.base)

    def say(why: str) -> str:
        return feedback.inaccurate(name, cmp.maxdiff, index, tol, _scale(expected), why)

    return named("lecture", say, s.hint(LECTURE, raw))


def check_random(s: Subject) -> Check:
    """Check 5: arbitrary upstream gradients, which defeat answers right by coincidence."""
    name, expected = s.name, s.expected[RANDOM]
    got = answer(s.outcome, RANDOM, name)
    if got is None:
        return failed("random", feedback.not_defined(name), s.hint(RANDOM, got))
    if got.shape != expected.shape:
        return named(
            "random",
            lambda why: feedback.wrong_shape(name, got.shape, expected.shape, why=why),
            s.hint(RANDOM, got),
        )
    drawn = RANDOM in s.drawn
    cmp = diagnose.compare(name, got.to(expected.dtype), expected, drawn=drawn, base=s.base)
    if cmp.approx:
        return Check("random", PASS, feedback.random_ok(name))
    index = diagnose.worst_index(got, expected)
    tol = diagnose.tolerance(expected, drawn=drawn, base=s.base)

    def say(why: str) -> str:
        return feedback.inaccurate(name, cmp.maxdiff, index, tol, _scale(expected), why)

    return named("random", say, s.hint(RANDOM, got) or Found(m.UPSTREAM_IGNORED))


def check_sizes(s: Subject) -> Check:
    """Check 6: another configuration in which every size differs."""
    if s.row:
        return _sizes_row(s)
    name, expected, sizes = s.name, s.expected[ALT], s.sizes[ALT]
    case, returned = s.returned(ALT)
    hard_coded = _hard_coded(s)
    if case.error is not None:
        err = case.error
        return named(
            "sizes", lambda why: feedback.raised_at(err.type, err.line, sizes, why), hard_coded
        )
    got = returned.tensor if returned else None
    if got is None:
        return failed("sizes", feedback.not_defined(name), hard_coded)
    if got.shape != expected.shape:
        return named(
            "sizes",
            lambda why: feedback.wrong_shape(name, got.shape, expected.shape, why=why),
            hard_coded,
        )
    drawn = ALT in s.drawn
    cmp = diagnose.compare(name, got.to(expected.dtype), expected, drawn=drawn, base=s.base)
    if cmp.approx:
        return Check("sizes", PASS, feedback.passes_sizes(name, sizes))
    index = diagnose.worst_index(got, expected)
    tol = diagnose.tolerance(expected, drawn=drawn, base=s.base)

    def say(why: str) -> str:
        return feedback.inaccurate(name, cmp.maxdiff, index, tol, _scale(expected), why)

    return named("sizes", say, hard_coded)


def _scale(expected: torch.Tensor) -> float:
    """Return the largest true value, the scale at which round-off is measured."""
    return float(expected.abs().max()) if expected.numel() else 0.0


def _sizes_row(s: Subject) -> Check:
    """Check 6 for a whole pass: one sentence per gradient, zeros right by coincidence named."""
    name, expected, sizes = s.name, s.expected[ALT], s.sizes[ALT]
    case, returned = s.returned(ALT)
    if case.error is not None:
        message = feedback.raised(case.error.type, case.error.line)
        return failed("sizes", message, _hard_coded(s))
    got = returned.tensor if returned else None
    if got is None or got.shape != expected.shape or not _close(got, expected, ALT in s.drawn):
        only_here = _why_only_here(got, expected, _hard_coded(s))
        return failed("sizes", feedback.wrong_with(name, sizes), only_here)
    return Check("sizes", PASS, feedback.passes_sizes(name, sizes))


def _why_only_here(got: torch.Tensor | None, expected: torch.Tensor, sizes: Found) -> Found:
    """Name why a gradient is right on the lecture batch only: zeros, or sizes."""
    if diagnose.zero_by_coincidence(got, expected):
        return Found(m.ZERO_BY_COINCIDENCE, (float(expected.abs().max()),))
    return sizes


def _hard_coded(s: Subject) -> Found:
    """Return the hard-coded size found, quoting the main batch's own sizes (the course's)."""
    return Found(m.HARD_CODED_SIZE, (tuple(s.sizes.get(LECTURE, {}).items()),))


def _close(got: torch.Tensor, expected: torch.Tensor, drawn: bool) -> bool:
    """Return whether got matches expected to the tolerance."""
    return diagnose.compare("", got.to(expected.dtype), expected, drawn=drawn).approx


def skipped(kind: str, reason: str) -> Check:
    """Return a check that was not run because an earlier one failed."""
    return Check(kind, SKIPPED, feedback.skipped(reason))
