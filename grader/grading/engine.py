"""Grade one answer to one exercise: static checks, one sandbox run, then the comparisons."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace

import torch

from grader.course import Catalog, Exercise, discover, rules
from grader.feedback import diagnose
from grader.feedback import voice as feedback
from grader.grading import checks, pipeline
from grader.grading.cases import LECTURE, RANDOM, Prepared, Runs, fresh, prepare, scope_names
from grader.grading.checks import Source, Subject
from grader.grading.clues import ClueGatherer
from grader.grading.pipeline import EXERCISE, WHOLE_PASS
from grader.grading.views import ExerciseView, describe
from grader.grading.wholepass import grade_pass, header
from grader.result import DECIDED_OR_OPEN, FAIL, Check, PassResult, Result, facts_of
from grader.sandbox import RunOutcome, Sandbox, default_sandbox

log = logging.getLogger("grader")


def _lines(tree, scenario) -> tuple[tuple[str, str], ...]:
    """Return (gradient, the learner's statements computing it) for each gradient written."""
    names = (f"d{t}" for t in scenario.whole_pass)
    found = ((name, rules.statements_changing(tree, name)) for name in names)
    return tuple((name, lines) for name, lines in found if lines)


def step_exercise(catalog: Catalog, scenario, root: str | None) -> Exercise | None:
    """Return the step exercise of a scenario that asks for the gradient `root` alone (its
    consumers' gradients given, as in the pass), or None."""
    for exercise in catalog.exercises:
        step = exercise.given == scenario.consumers(exercise.target)
        if exercise.scenario is scenario and exercise.answer == root and step:
            return exercise
    return None


class Grader:
    """Grades answers on one dataset; references and mistake outputs are computed once."""

    def __init__(
        self, dataset=None, catalog: Catalog | None = None, sandbox: Sandbox | None = None
    ):
        # One intra-op thread for this process: its tensors are small (a batch of 32), and a
        # second thread costs more than it saves; on a busy machine it waits for a core at every
        # parallel region (a grading's CPU 18.7 -> 7.2 ms; bench/README.md, 2026-11-26).
        torch.set_num_threads(1)
        self.dataset = dataset
        self.catalog = catalog or discover()
        self._sandbox = sandbox
        self.runs = Runs(dataset)
        self._prepared: dict[str, Prepared] = {}
        self._clues = ClueGatherer(lambda: self.sandbox)
        self._lock = threading.Lock()
        self._drawn: dict[str, Prepared] = {}  # the next submission's fresh cases, used once

    @property
    def sandbox(self) -> Sandbox:
        """Return the sandbox, starting the shared one on first use."""
        if self._sandbox is None:
            self._sandbox = default_sandbox()
        return self._sandbox

    def prepared(self, exercise: Exercise) -> Prepared:
        """Return the exercise's cases and references, computed once."""
        with self._lock:
            if exercise.id not in self._prepared:
                self._prepared[exercise.id] = prepare(exercise, self.runs)
            return self._prepared[exercise.id]

    def grade(self, exercise_id: str, code: str) -> Result:
        """Grade `code` as an answer to the exercise; never raises for the learner's code."""
        start = time.perf_counter()
        exercise = self.catalog.get(exercise_id)
        try:
            result = self._grade(exercise, code)
        except Exception:
            log.exception("grading %s failed", exercise_id)
            result = _fault(exercise)
        return _with_elapsed(result, time.perf_counter() - start)

    def grade_pass(self, code: str, scenario: str | None = None) -> PassResult:
        """Grade a whole backward pass (the lecture's Exercise 1 cell) of a scenario."""
        start = time.perf_counter()
        chosen = self.catalog.scenario(scenario) if scenario else self.catalog.scenarios[0]
        info = header(chosen, self.runs)
        try:
            result = self._grade_pass(chosen, info, code)
        except Exception:
            log.exception("grading a whole pass failed")
            result = PassResult(False, info, (), None, feedback.GRADER_FAULT, fault=True)
        return _with_elapsed(result, time.perf_counter() - start)

    def _grade_pass(self, chosen, info: dict, code: str) -> PassResult:
        """Refuse code that cannot run, then run the pass in the sandbox."""
        source = checks.screen(code, self.catalog.course.language)
        if source.refused:
            failed = pipeline.failure(pipeline.run(WHOLE_PASS, Subject("", source)))
            return PassResult(False, info, (), None, failed.message, **facts_of(failed, ran=False))
        result = grade_pass(chosen, self.runs, self.sandbox, code)
        lines = tuple(
            (f"d{t}", rules.statements_changing(source.tree, f"d{t}")) for t in chosen.whole_pass
        )
        result = replace(result, lines=tuple((n, c) for n, c in lines if c))
        if not result.solved:
            return self._diagnosed(chosen, result, source.tree)
        return self._hidden_branches(chosen, source.tree, result)

    def _diagnosed(self, chosen, result: PassResult, tree) -> PassResult:
        """Name the root cause's step exercise and, when the learner's lines for it run on
        their own there (with the helper lines they read), give the diagnosis (misconception
        and sentence) that exercise gives."""
        exercise = step_exercise(self.catalog, chosen, result.root_cause)
        if exercise is None:
            return result
        result = replace(result, root_exercise=exercise.id)
        provided = set(scope_names(self.prepared(exercise).case(LECTURE)))
        gradients = {f"d{t}" for t in chosen.whole_pass}
        lines = rules.statements_needed(tree, exercise.answer, provided, gradients)
        alone = self._grade(exercise, lines) if lines else None
        if alone is None or alone.solved or not alone.ran:
            return result
        misconception = alone.misconception or result.misconception
        return replace(result, diagnosis=alone.summary_with_hint(), misconception=misconception)

    def _hidden_branches(self, chosen, tree, result: PassResult) -> PassResult:
        """Grade on its own, with random upstream gradients, every gradient of the pass that
        has a consumer whose true gradient is float noise on the lecture batch (`dlogits`, fed
        by `dlogit_maxes`): a missing branch there cannot show in the pass's values."""
        lecture = self.runs.get(chosen, LECTURE)
        for exercise in self.catalog.exercises:
            if exercise.scenario is not chosen or exercise.target not in chosen.whole_pass:
                continue
            if exercise.answers:  # each of its answers is a gradient of the pass already
                continue
            if exercise.answer != f"d{exercise.target}" or not _has_silent_consumer(
                exercise, lecture
            ):
                continue
            lines = rules.statements_changing(tree, exercise.answer)
            if not lines:
                continue
            alone = self._grade(exercise, lines)
            failed = next((c for c in alone.checks if c.status == FAIL), None)
            if failed is not None and pipeline.beyond_lecture(failed.kind):
                message = feedback.whole_pass_hidden(exercise.answer, failed.hint)
                facts = {"failed_check": failed.kind, "misconception": failed.misconception}
                return replace(
                    result, solved=False, message=message, root_cause=exercise.answer, **facts
                )
        return result

    def describe(self, exercise_id: str) -> ExerciseView:
        """Return what a page shows about an exercise before any answer."""
        return describe(self.catalog.get(exercise_id), self.runs)

    def scratch(self, exercise_id: str, code: str):
        """Run code on an exercise's lecture batch, ungraded; describe what it assigned."""
        from grader.grading.scratch import ScratchResult, run_scratch

        exercise = self.catalog.get(exercise_id)
        try:
            language = self.catalog.course.language
            return run_scratch(self.prepared(exercise), self.sandbox, code, language)
        except Exception:
            log.exception("the scratchpad of %s failed", exercise_id)
            return ScratchResult(False, feedback.GRADER_FAULT)

    def graph(self, scenario: str | None = None):
        """Return the forward pass of a scenario as nodes and edges with shapes."""
        from grader.grading.graph import scenario_graph

        chosen = self.catalog.scenario(scenario) if scenario else self.catalog.scenarios[0]
        return scenario_graph(chosen, self.runs)

    def header(self, scenario: str | None = None) -> dict:
        """Return the dataset figures, parameter count and batch loss of a scenario."""
        chosen = self.catalog.scenario(scenario) if scenario else self.catalog.scenarios[0]
        return header(chosen, self.runs)

    def _grade(self, exercise: Exercise, code: str) -> Result:
        """Run the pipeline's checks in order; later checks are skipped once one fails."""
        if exercise.answers:
            return self._grade_parts(exercise, code)
        source = checks.screen(code, self.catalog.course.language)
        if source.refused:
            done = pipeline.run(EXERCISE, Subject(exercise.answer, source))
            why = "it does not parse" if source.unparsed else pipeline.reason(done)
            return _result(exercise, done, why)
        prepared = self._fresh(exercise)
        outcome = self.sandbox.run(code, prepared.cases, meanwhile=lambda: self._draw(exercise))
        return self._judge(prepared, source, outcome)

    def _fresh(self, exercise: Exercise) -> Prepared:
        """Return cases for this submission alone: those drawn while the exercise's last
        submission ran (`_draw`), each used once, else drawn now."""
        with self._lock:
            drawn = self._drawn.pop(exercise.id, None)
        return drawn or fresh(self.prepared(exercise), self.runs)

    def _draw(self, exercise: Exercise) -> None:
        """Draw the exercise's next submission's fresh cases: called while this submission's
        worker runs, so that the next one does not wait for them (about a millisecond of
        autograd; bench/README.md)."""
        if exercise.id in self._drawn:  # another submission's draw is waiting already
            return
        drawn = fresh(self.prepared(exercise), self.runs)
        with self._lock:
            self._drawn.setdefault(exercise.id, drawn)

    def _grade_parts(self, exercise: Exercise, code: str) -> Result:
        """Grade each answer of an exercise with several through every check; the first
        answer that fails speaks for the whole (each answer's result is in `parts`)."""
        parts = tuple(self._grade(part, code) for part in exercise.parts())
        first = next((p for p in parts if not p.solved), parts[0])
        solved = all(p.solved for p in parts)
        return replace(first, exercise=exercise.id, solved=solved, parts=parts)

    def _judge(self, prepared: Prepared, source: Source, outcome: RunOutcome) -> Result:
        """Turn a sandbox outcome into the pipeline's checks, with the cmp line and heatmap."""
        exercise = prepared.exercise
        if outcome.status == "internal":
            return _fault(exercise)
        if outcome.status == "busy":  # not graded: no check is made
            busy = [Check("runs", FAIL, outcome.message)]
            return _result(exercise, busy, "the grader is busy", busy=True)
        subject = self._clues.subject(prepared, source, outcome)
        done = pipeline.run(EXERCISE, subject)
        return _result(
            exercise,
            done,
            pipeline.reason(done),
            error=checks.learner_error(outcome),
            stdout="".join(c.stdout for c in outcome.cases),
            **_evidence(prepared, subject, done),
        )


def _has_silent_consumer(exercise: Exercise, lecture) -> bool:
    """Return whether a consumer's true gradient is below float noise on the lecture batch."""
    for consumer in exercise.given:
        grad = lecture.grads.get(consumer)
        if grad is None or not grad.numel() or not grad.is_floating_point():
            continue
        noise = diagnose.noise_level(
            {}, {exercise.target: lecture.grads[exercise.target]}, grad.dtype
        )
        if float(grad.abs().max()) <= noise:
            return True
    return False


def _same_shape(got, prepared: Prepared, case: str) -> bool:
    """Return whether got is a tensor of the expected shape for a case."""
    return got is not None and got.shape == prepared.expected[case].shape


def _evidence(prepared: Prepared, subject: Subject, done: list[Check]) -> dict:
    """Return the lecture's cmp line once the form is right, and a heatmap of wrong values."""
    status = {c.kind: c.status for c in done}
    if status.get("form") != "pass":
        return {}
    outcome, name, expected = subject.outcome, subject.name, prepared.expected[LECTURE]
    got = checks.answer(outcome, LECTURE, name).to(expected.dtype)
    cmp = subject.lecture_cmp
    heat = diagnose.heatmap(got, expected) if status.get("lecture") == FAIL else None
    rnd = checks.answer(outcome, RANDOM, name)
    if status.get("random") == FAIL and _same_shape(rnd, prepared, RANDOM):
        heat = diagnose.heatmap(rnd.to(expected.dtype), prepared.expected[RANDOM], RANDOM)
    return {"cmp": cmp, "heatmap": heat}


def _result(exercise: Exercise, done: list[Check], reason: str, **extra) -> Result:
    """Complete the check list with skipped checks and build the Result."""
    all_checks = pipeline.complete(EXERCISE, done, reason)
    solved = all(c.status in DECIDED_OR_OPEN for c in all_checks)
    return Result(exercise.id, exercise.answer, solved, all_checks, **extra)


def _fault(exercise: Exercise) -> Result:
    """Return the result for a failure of the grader itself."""
    failed = [Check("runs", FAIL, feedback.GRADER_FAULT)]
    return _result(exercise, failed, "the grader failed", fault=True)


def _with_elapsed(result, elapsed: float):
    """Return a Result or PassResult with its grading time set."""
    return replace(result, elapsed=elapsed)
