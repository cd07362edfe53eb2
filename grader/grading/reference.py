"""Run a scenario with autograd and rebuild vector-Jacobian products (trusted code only).

Only instructor files run here: the scenario's setup and forward programs. Learner code never
does; it runs in the sandbox.
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from grader.course import Scenario, Statement


@dataclass(frozen=True)
class ForwardRun:
    """One configuration of a scenario, run forward and backward with autograd."""

    sizes: dict[str, int]
    values: dict[str, torch.Tensor]
    grads: dict[str, torch.Tensor]

    def env(self) -> dict:
        """Return fresh detached copies of every value, plus the sizes."""
        env = {k: v.detach().clone() for k, v in self.values.items()}
        return env | dict(self.sizes)


@functools.lru_cache(maxsize=512)
def _compiled(source: str, where: str):
    """Compile one statement once."""
    return compile(source, where, "exec")


@functools.lru_cache(maxsize=512)
def _expression(source: str):
    """Compile one expression once."""
    return compile(source, "<forward line>", "eval")


class ScenarioError(Exception):
    """A line of an instructor's scenario raised: `where` is its file, program and line."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}")
        self.where, self.problem = where, problem


def _execute(statements: tuple[Statement, ...], env: dict, path, program: str) -> None:
    """Execute statements in order inside env; a line that raises is named by its file's line
    and its program's."""
    for stmt in statements:
        try:
            exec(_compiled(stmt.source, f"{path}: {program}"), env)
        except Exception as err:
            detail = f"`{stmt.source}` raised {type(err).__name__}: {err}"
            raise ScenarioError(stmt.place(path, program), detail) from err


def synthetic_data(sizes: dict, seed: int, rows: int = 1000) -> tuple[torch.Tensor, torch.Tensor]:
    """Return random contexts and targets over `vocab_size` tokens, for other configurations."""
    g = torch.Generator().manual_seed(seed + 1)
    X = torch.randint(0, sizes["vocab_size"], (rows, sizes["block_size"]), generator=g)
    Y = torch.randint(0, sizes["vocab_size"], (rows,), generator=g)
    return X, Y


def run_forward(
    scenario: Scenario, sizes: dict, data: tuple | None = None, seed: int | None = None
) -> ForwardRun:
    """Run setup and forward with autograd; keep every value and every gradient."""
    g = torch.Generator().manual_seed(scenario.seed if seed is None else seed)
    env: dict = {"torch": torch, "F": F, "math": math, "g": g}
    env |= sizes
    if data is not None:
        env["Xtr"], env["Ytr"] = data
    with torch.enable_grad():
        _execute(scenario.setup, env, scenario.path, "setup")
        for name in scenario.params:
            env[name].requires_grad_(True)
        for stmt in scenario.forward:
            _execute((stmt,), env, scenario.path, "forward")
            _retain(env[stmt.target])
        _backward(scenario, env)
    names = scenario.names()
    values = {k: env[k].detach().clone() for k in names if isinstance(env[k], torch.Tensor)}
    grads = {k: env[k].grad.clone() for k in values if _has_grad(env[k])}
    return ForwardRun(dict(sizes), values, grads)


def _backward(scenario: Scenario, env: dict) -> None:
    """Pull the output's gradient back: 1 for a scalar, else `output_grad` or ones."""
    out = env[scenario.output]
    if scenario.output_grad:
        out.backward(env[scenario.output_grad].to(out.dtype))
    else:
        out.backward(None if out.dim() == 0 else torch.ones_like(out))


def _retain(value) -> None:
    """Keep the gradient of an intermediate tensor."""
    if isinstance(value, torch.Tensor) and value.requires_grad and not value.is_leaf:
        value.retain_grad()


def _has_grad(value: torch.Tensor) -> bool:
    """Return whether autograd left a gradient on this tensor."""
    return value.requires_grad and value.grad is not None


def evaluate(expression: str, run: ForwardRun):
    """Return an expression of the scenario's forward pass (a factor of one of its lines, such
    as `1 / (n - 1)` or `2 * bndiff`) worked out on a run's values; None when it does not
    evaluate. Only the instructor's own forward lines are evaluated here."""
    env = dict(run.values) | dict(run.sizes) | {"torch": torch, "F": F, "math": math}
    try:
        with torch.no_grad():
            value = eval(_expression(expression), env)  # noqa: S307 (the scenario's own code)
    except Exception:
        return None
    if isinstance(value, torch.Tensor):
        return value.detach()
    return float(value) if isinstance(value, int | float) else None


def path_statements(scenario: Scenario, target: str, given: tuple[str, ...]) -> tuple:
    """Return the forward statements on some path from `target` to any of `given`.

    A path stops at the first given tensor it meets: that tensor's gradient already holds
    everything that flows back through it.
    """
    flowing = {target}
    reached = set()
    for stmt in scenario.forward:
        if flowing.intersection(stmt.reads):
            reached.add(stmt.target)
            if stmt.target not in given:
                flowing.add(stmt.target)
    upstream = set(given)
    for stmt in reversed(scenario.forward):
        if stmt.target in upstream:
            upstream.update(stmt.reads)
    return tuple(s for s in scenario.forward if s.target in reached & upstream)


def vjp(
    scenario: Scenario,
    run: ForwardRun,
    target: str,
    cotangents: dict[str, torch.Tensor],
    frozen: tuple[str, ...] = (),
) -> torch.Tensor:
    """Return d(target) given the gradients of the tensors in `cotangents`.

    The statements between `target` and those tensors are re-evaluated with `target` as a
    fresh leaf and every other input detached, then autograd pulls the cotangents back:
    `vjp(s, run, "counts", {"probs": dprobs, "counts_sum": dcounts_sum})`. The intermediates
    named in `frozen` are held constant (a fused formula's terms, one path at a time).
    """
    return Pullback(scenario, run, target, tuple(cotangents), frozen)(cotangents)


class Pullback:
    """The statements between a target and the tensors given, recorded once with autograd on
    one run: pulling cotangents back is then one backward pass over the kept graph, the same
    numbers as `vjp` without re-running the statements (the grader draws new upstream
    gradients for every submission and pulls each back so).

    The kept graph is only read: every call pulls back from the recorded graph alone and
    returns a tensor of its own, so no call sees another's cotangents or result.

        >>> back = Pullback(s, run, "counts", ("probs", "counts_sum"))
        >>> back({"probs": dprobs, "counts_sum": dcounts_sum})  # as vjp(s, run, "counts", ...)
    """

    def __init__(
        self,
        scenario: Scenario,
        run: ForwardRun,
        target: str,
        given: tuple[str, ...],
        frozen: tuple[str, ...] = (),
    ):
        env = run.env() | {"torch": torch, "F": F, "math": math}
        self.given = frozenset(given)
        self._leaf = env[target].requires_grad_(True)
        self._outputs: dict[str, torch.Tensor] = {}
        self._lock = threading.Lock()
        with torch.enable_grad():
            for stmt in path_statements(scenario, target, given):
                _execute((stmt,), env, scenario.path, "forward")
                if stmt.target in self.given:
                    self._outputs[stmt.target] = env[stmt.target]
                    env[stmt.target] = env[stmt.target].detach()
                elif stmt.target in frozen:
                    env[stmt.target] = env[stmt.target].detach()

    def __call__(self, cotangents: dict[str, torch.Tensor]) -> torch.Tensor:
        """Return d(target) for these gradients of the given tensors (the same names)."""
        if set(cotangents) != self.given:
            raise ValueError(f"expected the gradients of {sorted(self.given)}")
        if not self._outputs:
            return torch.zeros_like(self._leaf).detach()
        cots = [cotangents[n] for n in self._outputs]
        with self._lock, torch.enable_grad():
            grads = torch.autograd.grad(
                list(self._outputs.values()), self._leaf, cots, allow_unused=True, retain_graph=True
            )
        return torch.zeros_like(self._leaf).detach() if grads[0] is None else grads[0].detach()


def path_terms(
    scenario: Scenario, run: ForwardRun, target: str, cotangents: dict[str, torch.Tensor]
) -> tuple[tuple[str, torch.Tensor], ...]:
    """Return a fused formula's terms: ("", the path with every batch statistic held
    constant), then (statistic, what flows back through it alone) for each statistic (a line
    that reduces a tensor of the target's size), when the path has three lines or more."""
    path = [s for s in path_statements(scenario, target, tuple(cotangents))]
    size = run.values[target].numel()
    stats = tuple(s.target for s in path if _reduces(s, run, size) and s.target not in cotangents)
    if len(path) < 3 or not stats:
        return ()
    direct = vjp(scenario, run, target, cotangents, frozen=stats)
    others = [
        (k, vjp(scenario, run, target, cotangents, tuple(s for s in stats if s != k)) - direct)
        for k in stats
    ]
    return (("", direct), *others)


def _reduces(stmt: Statement, run: ForwardRun, size: int) -> bool:
    """Return whether a line makes a smaller tensor out of one of the target's size."""
    out = run.values.get(stmt.target)
    reads = [run.values[r] for r in stmt.reads if r in run.values]
    return out is not None and out.numel() < size and any(r.numel() == size for r in reads)
