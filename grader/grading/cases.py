"""Build the inputs an answer is run on, and autograd's reference for each (trusted code).

Three cases per exercise: the lecture batch with autograd's own upstream gradients, the same
batch with random upstream gradients, and another configuration in which every size differs.
"""

from __future__ import annotations

import secrets
import threading
import weakref
from dataclasses import dataclass, field, replace

import torch

from grader.course import Exercise, Scenario
from grader.grading.reference import ForwardRun, Pullback, run_forward, synthetic_data, vjp
from grader.sandbox import Case

LECTURE, RANDOM, ALT = "lecture", "random", "alt"


@dataclass(frozen=True)
class Prepared:
    """An exercise made concrete on one dataset: the cases and autograd's answers."""

    exercise: Exercise
    cases: tuple[Case, ...]
    expected: dict[str, torch.Tensor]
    runs: dict[str, ForwardRun]
    cotangents: dict[str, dict[str, torch.Tensor]]
    # RANDOM's and ALT's statements recorded once: a submission's fresh upstream gradients are
    # pulled back through them (`fresh`)
    pullbacks: dict[str, Pullback] = field(default_factory=dict)

    def case(self, name: str) -> Case:
        """Return the case called `name`."""
        return next(c for c in self.cases if c.name == name)


class Runs:
    """The forward runs of every scenario on one dataset, computed once each."""

    def __init__(self, dataset=None):
        self.dataset = dataset
        self._runs: dict[tuple[str, str], ForwardRun] = {}
        self._lock = threading.Lock()

    def get(self, scenario: Scenario, config: str) -> ForwardRun:
        """Return the scenario run for `config` (LECTURE or ALT), computed once."""
        key = (str(scenario.path), config)
        with self._lock:
            if key not in self._runs:
                self._runs[key] = self._run(scenario, config)
            return self._runs[key]

    def fresh(self, scenario: Scenario, config: str, seed: int | None = None) -> ForwardRun:
        """Return a run for `config` on data and parameters drawn from `seed` (default: a new
        secret one), never kept: what no submission has seen before it is graded."""
        return self._run(scenario, config, secrets.randbits(62) if seed is None else seed)

    def _run(self, scenario: Scenario, config: str, seed: int | None = None) -> ForwardRun:
        """Run the scenario for one configuration (ALT's data and parameters from `seed`, by
        default the scenario's own)."""
        if config == LECTURE:
            sizes, data = dict(scenario.sizes), None
            if scenario.uses_dataset:
                sizes["vocab_size"] = self.dataset.vocab_size
                sizes["block_size"] = self.dataset.block_size
                data = (self.dataset.Xtr, self.dataset.Ytr)
            return run_forward(scenario, sizes, data)
        seed = scenario.seed if seed is None else seed
        sizes = dict(scenario.alt_sizes)
        data = synthetic_data(sizes, seed) if scenario.uses_dataset else None
        return run_forward(scenario, sizes, data, seed)


def prepare(exercise: Exercise, runs: Runs) -> Prepared:
    """Return the three cases for an exercise, with the expected gradient of each."""
    lecture = in_dtype(runs.get(exercise.scenario, LECTURE), exercise.dtype)
    alt = in_dtype(runs.get(exercise.scenario, ALT), exercise.dtype)
    cotangents = {
        LECTURE: upstream(exercise, lecture),
        RANDOM: random_upstream(exercise, lecture),
        ALT: upstream(exercise, alt),
    }
    forward = {LECTURE: lecture, RANDOM: lecture, ALT: alt}
    given = tuple(exercise.given)
    kept = (RANDOM,) if upstream_is_fixed(exercise) else (RANDOM, ALT)  # ALT: drawn anew
    pullbacks = {
        name: Pullback(exercise.scenario, forward[name], exercise.target, given) for name in kept
    }
    expected = {
        LECTURE: _reference(exercise, lecture, cotangents[LECTURE]),
        RANDOM: pullbacks[RANDOM](cotangents[RANDOM]),
        ALT: _reference(exercise, alt, cotangents[ALT]),
    }
    cases = tuple(
        make_case(name, exercise, forward[name], cotangents[name])
        for name in (LECTURE, RANDOM, ALT)
    )
    return Prepared(exercise, cases, expected, forward, cotangents, pullbacks)


def in_dtype(run: ForwardRun, dtype: str) -> ForwardRun:
    """Return the run with every float value and gradient in `dtype` ("" keeps the run)."""
    if not dtype:
        return run
    kind = getattr(torch, dtype)

    def cast(tensors: dict) -> dict:
        return {k: v.to(kind) if v.is_floating_point() else v for k, v in tensors.items()}

    return ForwardRun(run.sizes, cast(run.values), cast(run.grads))


def _reference(exercise: Exercise, run: ForwardRun, cotangents: dict) -> torch.Tensor:
    """Return autograd's gradient of the target: the run's own, or in the exercise's dtype
    worked out again from the upstream gradients (not the run's, rounded, cast up)."""
    if not exercise.dtype:
        return run.grads[exercise.target]
    return vjp(exercise.scenario, run, exercise.target, cotangents)


def upstream(exercise: Exercise, run: ForwardRun) -> dict[str, torch.Tensor]:
    """Return autograd's gradients of the tensors the exercise gives the learner."""
    return {name: run.grads[name] for name in exercise.given}


def random_upstream(
    exercise: Exercise, run: ForwardRun, g: torch.Generator | None = None
) -> dict[str, torch.Tensor]:
    """Return random upstream gradients, every consumer on one scale (a scalar output keeps 1).

    One scale, the largest spread among the true upstream gradients, so that no consumer's
    branch can vanish: scaled to its own spread, `dlogit_maxes` (about 1e-9) would hide the
    max branch of `dlogits`, and answers without it would pass.
    """
    g = g or torch.Generator().manual_seed(exercise.scenario.seed + len(exercise.id))
    spreads = [_spread(run.grads[name]) for name in exercise.given]
    scale = max(spreads, default=0.0) or 1.0
    out = {}
    for name in exercise.given:
        like = run.grads[name]
        if name == exercise.scenario.output and like.dim() == 0:
            out[name] = torch.ones_like(like)
        else:
            out[name] = torch.randn(like.shape, generator=g, dtype=like.dtype) * scale
    return out


def _spread(t: torch.Tensor) -> float:
    """Return the standard deviation of a gradient (its magnitude for a single number), once
    per tensor: autograd's gradients of a kept run are read at every submission."""
    kept = _SPREADS.get(id(t))
    if kept is not None and kept[0]() is t:
        return kept[1]
    value = float(t.std()) if t.numel() > 1 else float(t.abs().max()) if t.numel() else 0.0
    if len(_SPREADS) >= 512:
        _SPREADS.clear()
    _SPREADS[id(t)] = (weakref.ref(t), value)
    return value


_SPREADS: dict[int, tuple[weakref.ref, float]] = {}  # id -> (the tensor, its spread)


def fresh(prepared: Prepared, runs: Runs) -> Prepared:
    """Return the prepared cases with new random upstream gradients on the lecture batch and
    on the other sizes.

    Drawn anew for every submission, so that nothing a message reveals about those cases can
    be collected over many submissions and replayed, and no value computed offline passes them.
    Mostly only the upstream gradients change: the reference is then one backward pass per
    case through the statements recorded once (`Prepared.pullbacks`). Where those cannot change
    the answer (the exercise is given only the scalar loss), the other sizes' data and
    parameters are drawn anew too (one forward run at the other sizes, a few milliseconds).
    """
    exercise, seed = prepared.exercise, secrets.randbits(62)
    g = torch.Generator().manual_seed(seed)
    forward, cotangents, expected = dict(prepared.runs), dict(prepared.cotangents), {}
    pullbacks = dict(prepared.pullbacks)
    if upstream_is_fixed(exercise):
        forward[ALT] = in_dtype(runs.fresh(exercise.scenario, ALT, seed), exercise.dtype)
        pullbacks.pop(ALT, None)  # recorded on the kept data, not on these
    for name in (RANDOM, ALT):
        cotangents[name] = random_upstream(exercise, forward[name], g)
        if name in pullbacks:
            expected[name] = pullbacks[name](cotangents[name])
        else:
            expected[name] = vjp(
                exercise.scenario, forward[name], exercise.target, cotangents[name]
            )
    cases = tuple(
        make_case(c.name, exercise, forward[c.name], cotangents[c.name]) if c.name != LECTURE else c
        for c in prepared.cases
    )
    expected = {**prepared.expected, **expected}
    return replace(
        prepared,
        cases=cases,
        expected=expected,
        cotangents=cotangents,
        runs=forward,
        pullbacks=pullbacks,
    )


def upstream_is_fixed(exercise: Exercise) -> bool:
    """Return whether random upstream gradients cannot change the answer: the exercise is given
    only the scenario's scalar output (its gradient is 1), as `dlogprobs` is given `dloss`."""
    return all(name == exercise.scenario.output for name in exercise.given)


def make_case(name: str, exercise: Exercise, run: ForwardRun, cotangents: dict) -> Case:
    """Return one sandbox case: the forward values in scope and the upstream gradients."""
    visible = exercise.scope or tuple(run.values)
    tensors = {k: run.values[k] for k in visible if k in run.values}
    tensors |= {f"d{k}": v for k, v in cotangents.items()}
    values = {k: v for k, v in run.sizes.items() if exercise.scope is None or k in visible}
    return Case(name=name, tensors=tensors, values=values, outputs=(exercise.answer,))


def scope_names(case: Case) -> list[str]:
    """Return the names an answer may use in a case, for messages."""
    return sorted(case.tensors) + sorted(case.values) + ["torch", "F", "math"]
