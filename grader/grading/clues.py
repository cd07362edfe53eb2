"""What the checks read about one answer besides its run: the `Subject`, with each case's
`Clues` for the hints' detectors (autograd's answers, and thunks for the listed mistakes'
sandboxed outputs, the gradient from only some consumers and a fused formula's terms).

    >>> gatherer = ClueGatherer(lambda: sandbox)
    >>> subject = gatherer.subject(prepared, source, outcome)

The Grader gathers them before the checks run, so no check calls back into the grader.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import torch

from grader.course import Exercise, evaluate_shape
from grader.feedback import detectors, diagnose
from grader.grading import checks
from grader.grading.cases import ALT, LECTURE, RANDOM, Prepared, scope_names
from grader.grading.checks import Source, Subject
from grader.grading.hints import Clues
from grader.grading.reference import evaluate, path_statements, path_terms, vjp
from grader.misconceptions import Found
from grader.sandbox import RunOutcome, Sandbox

RERUNS = 8  # rewrites of the learner's code run for one submission, at most
SLOW_RERUN = 2.0  # seconds: after a rewrite's run this slow, no more (a quick answer's take ~10 ms)


class Budget:
    """The rewrites one submission may still run in the sandbox: a wrong answer's remedies
    cost a run each, so a learner cannot make one submission cost many slow runs."""

    def __init__(self, runs: int):
        self.runs, self.slow = runs, False

    def spend(self) -> bool:
        """Return whether one more run is allowed, and count it."""
        if self.slow or self.runs <= 0:
            return False
        self.runs -= 1
        return True


def _none(code: str) -> None:
    """Run nothing: there is no learner's code to rewrite."""
    return None


class ClueGatherer:
    """Gathers an answer's Subject and clues; keeps what depends only on the exercise (the
    listed mistakes' outputs and a fused formula's terms on the lecture batch)."""

    def __init__(self, sandbox: Callable[[], Sandbox]):
        self._sandbox = sandbox  # the grader's, started on first use
        self._kept: dict[tuple[str, int | str], object] = {}  # outputs, a formula's terms

    def subject(self, prepared: Prepared, source: Source, outcome: RunOutcome) -> Subject:
        """Return the answer as the checks read it, with this exercise's diagnosis."""
        exercise, run = prepared.exercise, prepared.runs[LECTURE]
        expected = prepared.expected[LECTURE]
        cotangents = prepared.cotangents[LECTURE]
        budget = Budget(RERUNS)
        return Subject(
            exercise.answer,
            source,
            outcome,
            cases={c.name: c for c in prepared.cases},
            expected=prepared.expected,
            sizes={case: r.sizes for case, r in prepared.runs.items()},
            drawn=frozenset((RANDOM, ALT)),
            base=exercise.tolerance,
            exact_dtype=bool(exercise.dtype),
            declared=_declared_shape(exercise, run.sizes, tuple(expected.shape)),
            upstream=tuple(tuple(t.shape) for t in cotangents.values()),
            clues={case: self.clues(prepared, case, source, budget) for case in (LECTURE, RANDOM)},
            noise=lambda: diagnose.noise_level(run.values, cotangents, expected.dtype),
        )

    def clues(
        self,
        prepared: Prepared,
        case: str,
        source: Source | None = None,
        budget: Budget | None = None,
    ) -> Clues:
        """Return what the hints read on one case; the sandboxed and autograd runs they may
        need are thunks, run only for an answer wrong there."""
        exercise = prepared.exercise
        tree = source.tree if source is not None else None
        run, cots = prepared.runs[case], prepared.cotangents[case]
        mistakes = tuple(
            (Found(m.misconception, said=m.message), self._mistake_output(prepared, i, case))
            for i, m in enumerate(exercise.mistakes)
        )
        partials = tuple(
            (missing, _partial(exercise, run, _only(cots, kept)))
            for kept, missing in diagnose.missing_subsets(exercise.given)
        )
        n = int(run.sizes.get("n", 1))
        lecture = prepared.expected[LECTURE]
        expected = prepared.expected[case]
        return Clues(
            expected,
            lecture,
            exercise.target,
            n,
            run.sizes,
            mistakes,
            partials,
            values=run.values,
            upstream=cots,
            lines={c: _line(exercise, c) for c in cots},
            terms=self._terms(prepared, case),
            reduced=lambda: detectors.reduction_dims(tree) if tree is not None else (),
            stat_dims=lambda: _stat_dims(exercise, tuple(cots)),
            parts=exercise.named_parts,
            neighbours=_neighbours(exercise, tuple(cots)),
            evaluate=lambda code: evaluate(code, run),
            alone={c: _partial(exercise, run, _unit(cots, c)) for c in cots},
            answer=exercise.answer,
            tree=tree,
            source=source.code if source is not None else "",
            rerun=self._rerun(prepared, case, budget or Budget(RERUNS)) if tree else _none,
            scope=frozenset(scope_names(prepared.case(case))),
            tolerance=exercise.tolerance,
        )

    def _rerun(self, prepared: Prepared, case: str, budget: Budget):
        """Return a function running a rewrite of the learner's code on one case in the
        sandbox (as their code runs) and returning its answer, None when it did not run; each
        rewrite runs once, only code that passes the screen the learner's passed, and only
        within the submission's budget (a few runs, none after a slow one: a rewrite may loop
        where the learner's code did not, and each run is bounded by the sandbox's limits)."""
        kept: dict[str, torch.Tensor | None] = {}

        def run(code: str) -> torch.Tensor | None:
            if code not in kept:
                kept[code] = None
                if budget.spend() and not checks.screen(code).refused:
                    outcome = self._sandbox().run(code, [prepared.case(case)])
                    budget.slow = budget.slow or outcome.elapsed > SLOW_RERUN
                    ok = outcome.status == "ok" and not outcome.cases[0].error
                    kept[code] = (
                        checks.answer(outcome, case, prepared.exercise.answer) if ok else None
                    )
            return kept[code]

        return run

    def _terms(self, prepared: Prepared, case: str):
        """Return a thunk giving a fused formula's terms on a case: kept for the lecture batch,
        computed anew on the random case (drawn for each submission)."""
        exercise = prepared.exercise
        run, cots = prepared.runs[case], prepared.cotangents[case]
        compute = _once(lambda: path_terms(exercise.scenario, run, exercise.target, cots))
        if case != LECTURE:
            return compute

        def kept():
            key = (exercise.id, "terms")
            if key not in self._kept:
                self._kept[key] = compute()
            return self._kept[key]

        return kept

    def _mistake_output(self, prepared: Prepared, index: int, case: str = LECTURE):
        """Return a thunk giving the output of an instructor-listed mistake (run sandboxed).

        On the lecture batch it is kept; on the random case, drawn anew for each submission,
        it runs again (only for an answer that failed there: a mistake that hides behind a
        gradient of almost zero, such as a max branch sent to the whole row, shows only there).
        """

        def output() -> torch.Tensor | None:
            key = (prepared.exercise.id, index)
            if case != LECTURE or key not in self._kept:
                code = prepared.exercise.mistakes[index].code
                outcome = self._sandbox().run(code, [prepared.case(case)])
                found = checks.answer(outcome, case, prepared.exercise.answer)
                if outcome.status != "ok" or case != LECTURE:  # busy, failed, or drawn anew
                    return found
                self._kept[key] = found
            return self._kept[key]

        return output


def _declared_shape(exercise: Exercise, sizes: dict, shape: tuple[int, ...]) -> str:
    """Return the target's shape comment when it holds for these sizes, else ""."""
    comment = exercise.scenario.statement(exercise.target).shape
    return comment if comment and evaluate_shape(comment, sizes) == shape else ""


def _line(exercise: Exercise, consumer: str) -> str:
    """Return a consumer's forward line, without its comment."""
    try:
        return exercise.scenario.statement(consumer).source.split("#")[0].strip()
    except KeyError:
        return consumer


def _stat_dims(exercise: Exercise, given: tuple[str, ...]) -> tuple[int, ...]:
    """Return the dims the forward lines between the target and its given gradients reduce
    over (a batch statistic's `sum(0)`, LayerNorm's `mean(-1)`)."""
    lines = path_statements(exercise.scenario, exercise.target, given)
    return tuple(d for s in lines for d in detectors.reduction_dims(ast.parse(s.source)))


def _neighbours(exercise: Exercise, given: tuple[str, ...]) -> dict[str, str]:
    """Return the lines of the steps next to the exercise's: `next:<input>` for the target's
    own line (its local derivative with respect to each input is the next step's factor), and
    `before:<consumer>` for the line that reads a consumer, when one line alone does (the step
    that made the consumer's gradient)."""
    scenario, out = exercise.scenario, {}
    try:
        own = scenario.statement(exercise.target)
    except KeyError:
        own = None
    for name in own.reads if own is not None else ():
        out[f"next:{name}"] = own.source.split("#")[0].strip()
    for consumer in given:
        readers = [stmt for stmt in scenario.forward if consumer in stmt.reads]
        if len(readers) == 1:  # the consumer's gradient is that one line's step alone
            out[f"before:{consumer}"] = readers[0].source.split("#")[0].strip()
    return out


def _unit(cotangents: dict, consumer: str) -> dict:
    """Return the cotangents with one consumer's made ones and the others zero: that branch's
    local derivative alone, without its upstream gradient."""
    return {
        k: torch.ones_like(v) if k == consumer else torch.zeros_like(v)
        for k, v in cotangents.items()
    }


def _once(thunk):
    """Return a thunk that computes its value on the first call only."""
    kept: list = []

    def value():
        if not kept:
            kept.append(thunk())
        return kept[0]

    return value


def _only(cotangents: dict, kept: tuple[str, ...]) -> dict:
    """Return the cotangents with every consumer but `kept` silenced (zero, still a stop)."""
    return {k: v if k in kept else torch.zeros_like(v) for k, v in cotangents.items()}


def _partial(exercise: Exercise, run, cotangents: dict):
    """Return a thunk giving the gradient from only some of the consumers."""
    return lambda: vjp(exercise.scenario, run, exercise.target, cotangents)
