"""The learner's backward section of Exercise 4, and the read-only loop around it.

The section is assembled from the learner's own solved answers (fused cross-entropy, second
linear layer, tanh, fused batchnorm, first linear layer, embedding), with each exercise's
starter where there is none. The loop around it is shown as text that the tests execute, so
that what the page shows is what the worker runs.
"""

from __future__ import annotations

import ast
import textwrap

from grader.sandbox.training import Program
from grader.training.records import TrainSettings

# (exercise id, comment before it) in backward order: the lecture's Exercise 4 section.
PARTS = (
    ("dlogits_fused", "# cross entropy loss backward (Exercise 2)"),
    ("dh", "# 2nd layer backprop"),
    ("dW2", ""),
    ("db2", ""),
    ("dhpreact", "# tanh"),
    ("dbngain", "# batchnorm backprop (Exercise 3)"),
    ("dbnbias", ""),
    ("dhprebn_fused", ""),
    ("dembcat", "# 1st layer"),
    ("dW1", ""),
    ("db1", ""),
    ("demb", "# embedding"),
    ("dC", ""),
)
INDENT = " " * 8


def compose(starters: dict[str, str], solved: dict[str, str]) -> str:
    """Return the section: each part from the learner's solved answer, else from its starter."""
    lines = ["# manual backprop! #swole_doge_meme"]
    for exercise_id, comment in PARTS:
        if comment:
            lines.append(comment)
        lines.append((solved.get(exercise_id) or starters[exercise_id]).strip())
    return "\n".join(lines) + "\n"


def program(
    settings: TrainSettings, vocab_size: int, block_size: int, loop: Program
) -> tuple[str, str]:
    """Return the loop before the learner's section and the loop after it, as text."""
    s = settings
    before = [
        "# init",
        f"n_embd = {s.n_embd}  # the dimensionality of the character embedding vectors",
        f"n_hidden = {s.n_hidden}  # the number of neurons in the hidden layer of the MLP",
        f"vocab_size, block_size = {vocab_size}, {block_size}",
        f"seed = {s.seed}",
        loop.init.rstrip(),
        f"parameters = [{', '.join(loop.params)}]",
        "",
        f"max_steps = {s.steps}",
        f"batch_size = {s.batch_size}",
        "n = batch_size  # convenience",
        "lossi = []",
        "",
        "with torch.inference_mode():  # your own backward pass: no autograd",
        "    for i in range(max_steps):",
        textwrap.indent(loop.step.rstrip(), INDENT),
        "",
        f"{INDENT}# backward pass: your section (the editor below) runs here",
    ]
    return "\n".join(before) + "\n", _after(s, loop)


def _after(s: TrainSettings, loop: Program) -> str:
    """Return the update and the stats, after the section."""
    lines = [
        f"grads = [{', '.join(loop.grads)}]",
        "# update",
        f"lr = {s.learning_rate:g} if i < {s.decay_step} else {s.decayed_rate:g}"
        "  # step learning rate decay",
        "for p, grad in zip(parameters, grads):",
        "    p.add_(grad, alpha=-lr)  # the lecture's p.data += -lr * grad",
        "# track stats",
        "lossi.append(loss.log10().item())",
    ]
    return textwrap.indent("\n".join(lines), INDENT) + "\n"


def whole_program(
    settings: TrainSettings, vocab_size: int, block_size: int, loop: Program, section: str
) -> str:
    """Return the whole loop with the section in place (what the tests execute)."""
    before, after = program(settings, vocab_size, block_size, loop)
    return before + textwrap.indent(section, INDENT) + after


def unfinished(tree: ast.Module) -> tuple[str, ...]:
    """Return the names the section still assigns `...` to (a starter left as it is)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_ellipsis(node.value):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return tuple(dict.fromkeys(names))


def _is_ellipsis(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def loop_into(tree: ast.Module, name: str) -> int | None:
    """Return the line of the outermost Python loop that writes into `name[...]`, if any."""
    for node in ast.walk(tree):
        if isinstance(node, ast.For | ast.While) and _writes_into(node, name):
            return node.lineno
    return None


def _writes_into(loop: ast.AST, name: str) -> bool:
    """Return whether the loop's body assigns to an element of `name`."""
    for node in ast.walk(loop):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AugAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript) and _root(target) == name:
                return True
    return False


def _root(node: ast.AST) -> str:
    """Return the name at the root of a subscript or attribute chain, or ''."""
    while isinstance(node, ast.Subscript | ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""
