"""The lecture's MLP as Exercise 4 trains and scores it, derived from its one scenario.

The MLP is written once, in the scenario the section's exercises belong to
(exercises/01_mlp/scenario.toml, with the lecture's names and shape comments). Exercise 4 takes:

- INIT: `g` seeded, then the setup's lines that draw a parameter, in their order;
- the parameters: the scenario's `params`, by name, and each one's shape comment, which gives
  its shape for a run's sizes (the worker trains these names, the parent checks these shapes);
- each step's minibatch: the setup's other lines (`ix`, `Xb`, `Yb`);
- the forward pass: the scenario's lines, except the spans in FUSED, which the lecture's
  training loop computes with one library call each (mean, var, cross_entropy), so that a run
  gives the lecture's numbers bit for bit;
- evaluation: the same forward lines with batchnorm's batch statistics (BATCH_STATS) taken from
  the whole training set (`calibration`) instead of the batch (`inference`).

    >>> model = model_of(catalog.scenario("01_mlp"))
    >>> [target(text) for text in model.forward][:3]
    ['emb', 'embcat', 'hprebn']
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

from grader.course import Statement, evaluate_shape
from grader.sandbox.training import Program, Shapes

# (first, last) line of a span of the scenario's forward pass -> the one call that computes
# `last` in the lecture's training loop; the span's other names are not computed there.
FUSED = {
    ("bnmeani", "bnmeani"): "hprebn.mean(0, keepdim=True)",
    ("bndiff2", "bnvar"): "hprebn.var(0, keepdim=True, unbiased=True)",
    ("logit_maxes", "loss"): "F.cross_entropy(logits, Yb)",
}
BATCH_STATS = ("bnmeani", "bnvar")  # batchnorm's statistics: calibrated once for evaluation
SEED = "g = torch.Generator().manual_seed(seed)  # for reproducibility"
PARTS = ("init", "batch", "forward", "params", "shapes")  # a Model's fields, as wire() sends them


@dataclass(frozen=True)
class Model:
    """The MLP as lines of code, each `name = expr  # (shape)`."""

    init: tuple[str, ...]  # seeds g and draws the parameters
    batch: tuple[str, ...]  # draws one minibatch from Xtr, Ytr
    forward: tuple[str, ...]  # the forward pass to `loss`, FUSED spans in one call
    params: tuple[str, ...]  # the trained parameters' names, the scenario's `params`
    shapes: tuple[str, ...]  # each parameter's shape comment, e.g. "(vocab_size, n_embd)"

    def program(self) -> Program:
        """Return the training loop's INIT and STEP, as the worker runs them, and its params."""
        step = ("# minibatch construct", *self.batch, "# forward pass", *self.forward)
        return Program("\n".join(self.init) + "\n", "\n".join(step) + "\n", self.params)

    def param_shapes(self, sizes: dict) -> Shapes:
        """Return each parameter's shape for these sizes (the shapes INIT draws)."""
        shapes = {}
        for name, comment in zip(self.params, self.shapes, strict=True):
            shape = evaluate_shape(comment, sizes)
            if shape is None:
                raise ValueError(f"the shape of `{name}`, {comment}, is not one of sizes")
            shapes[name] = shape
        return shapes

    def calibration(self) -> tuple[str, ...]:
        """Return the forward lines that compute BATCH_STATS from a batch `Xb`."""
        return needed(self.forward, BATCH_STATS)

    def inference(self, output: str) -> tuple[str, ...]:
        """Return the forward lines that compute `output` with BATCH_STATS given, not computed."""
        return needed(tuple(s for s in self.forward if target(s) not in BATCH_STATS), (output,))

    def wire(self) -> dict:
        """Return the model as JSON-ready data (Model(**data) reads it back)."""
        return {part: list(getattr(self, part)) for part in PARTS}


def model_of(scenario) -> Model:
    """Return the MLP of a scenario as Exercise 4 runs it; ValueError if a FUSED span is absent."""
    params, shapes = scenario.params, {s.target: s.shape for s in scenario.setup}
    init = (SEED, *(line(s) for s in scenario.setup if s.target in params))
    batch = tuple(line(s) for s in scenario.setup if s.target not in params)
    drawn = tuple(shapes[name] for name in params)
    return Model(init, batch, fuse(scenario.forward), params, drawn)


def course_model(catalog) -> Model:
    """Return the MLP of a course's Exercise 4: the scenario of its section's exercises."""
    from grader.training.section import PARTS

    return model_of(catalog.get(PARTS[0][0]).scenario)


@functools.cache
def lecture_model() -> Model:
    """Return the MLP of the shipped course (exercises/, read once)."""
    from grader.course import discover

    return course_model(discover())


def line(stmt: Statement) -> str:
    """Return a statement as the scenario writes it: source and shape comment, no note."""
    return f"{stmt.source}  # {stmt.shape}" if stmt.shape else stmt.source


def fuse(forward: tuple[Statement, ...]) -> tuple[str, ...]:
    """Return the forward lines with each FUSED span replaced by its one call."""
    lines, names = [line(s) for s in forward], [s.target for s in forward]
    shapes = {s.target: s.shape for s in forward}
    for (first, last), call in FUSED.items():
        if first not in names or last not in names:
            raise ValueError(f"the forward pass has no span {first}..{last} to fuse")
        i, j = names.index(first), names.index(last)
        lines[i : j + 1] = [line(Statement(last, (), f"{last} = {call}", shapes[last], 0))]
        names[i : j + 1] = [last]
    return tuple(lines)


def needed(lines: tuple[str, ...], outputs: tuple[str, ...]) -> tuple[str, ...]:
    """Return the lines that outputs depend on, in order (what the rest reads, not computes)."""
    wanted, kept = set(outputs), []
    for text in reversed(lines):
        if target(text) in wanted:
            kept.append(text)
            wanted |= reads(text)
    return tuple(reversed(kept))


@functools.cache
def target(text: str) -> str:
    """Return the name a line `name = expr` assigns."""
    (node,) = ast.parse(text).body
    return node.targets[0].id


@functools.cache
def reads(text: str) -> frozenset[str]:
    """Return the names a line reads."""
    tree = ast.parse(text).body[0].value
    return frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))


def execute(lines: tuple[str, ...], ns: dict, outputs: tuple[str, ...]) -> dict:
    """Run lines in ns, dropping each result no later line reads; return the outputs by name."""
    for k, text in enumerate(lines):
        exec(_compiled(text), ns)
        later = set(outputs).union(*(reads(t) for t in lines[k + 1 :]))
        for done in {target(t) for t in lines[: k + 1]} - later:
            ns.pop(done, None)  # a whole split's intermediates are large
    return {name: ns[name] for name in outputs}


@functools.cache
def _compiled(text: str):
    """Compile one line once."""
    return compile(text, "<model>", "exec", dont_inherit=True)
