"""What the hints' detectors read about one answer on one case: the `Clues` (autograd's answer,
the case's forward values and upstream gradients, the scenario's lines around the target, and
thunks for what costs a run: the listed mistakes' outputs, a rewrite of the learner's code run
in the sandbox, the gradient from only some consumers)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import torch

from grader.feedback import diagnose
from grader.misconceptions import Found

__all__ = ["Clues"]


@dataclass(frozen=True)
class Clues:
    """What the detectors read on one case: autograd's answer and, computed only when asked,
    the outputs of the exercise's listed mistakes and the gradient from only some consumers.

    `mistakes` pairs each listed mistake (as it is named) with a thunk giving its output;
    `partials` pairs the consumers left out with a thunk giving the gradient without them;
    `lecture` is autograd's answer on the lecture batch (an all-zero answer is measured by it).
    `values` are the case's forward values, `upstream` the consumers' gradients by name and
    `lines` their forward lines; `terms` gives a fused formula's terms, one per path through a
    batch statistic (empty for a one-line exercise), and `parts` their names in the lecture's
    words; `reduced` and `stat_dims` give the dims the answer's reductions and the path's
    statistics name. `neighbours` holds the lines of the steps next to this one (`next:<input>`:
    the target's own line, `before:<consumer>`: the line that reads a consumer), `evaluate`
    works out an expression of the forward pass on this case, and `alone` gives, by consumer,
    its branch's local derivative without its upstream gradient. `tree` and `source` are the
    learner's code, read and never run here; `rerun` runs a rewrite of it in the sandbox and
    returns its answer (None when it raised); `scope` holds the names that code may read.
    """

    expected: torch.Tensor
    lecture: torch.Tensor
    target: str = ""
    n: int = 1
    sizes: Mapping[str, int] = field(default_factory=dict)
    mistakes: tuple[tuple[Found, Callable[[], torch.Tensor | None]], ...] = ()
    partials: tuple[tuple[tuple[str, ...], Callable[[], torch.Tensor]], ...] = ()
    values: Mapping[str, torch.Tensor] = field(default_factory=dict)
    upstream: Mapping[str, torch.Tensor] = field(default_factory=dict)
    lines: Mapping[str, str] = field(default_factory=dict)
    terms: Callable[[], tuple[tuple[str, torch.Tensor], ...]] = tuple
    reduced: Callable[[], tuple[int, ...]] = tuple  # the dims the answer's code reduces over
    stat_dims: Callable[[], tuple[int, ...]] = tuple  # the dims the path's lines reduce over
    parts: tuple[tuple[str, str], ...] = ()  # a fused formula's terms in the lecture's words
    neighbours: Mapping[str, str] = field(default_factory=dict)
    evaluate: Callable[[str], object] = lambda code: None
    alone: Mapping[str, Callable[[], torch.Tensor]] = field(default_factory=dict)
    answer: str = ""  # the answer's variable, `dlogits`
    tree: ast.Module | None = None
    source: str = ""
    rerun: Callable[[str], torch.Tensor | None] = lambda code: None
    scope: frozenset[str] = frozenset()
    tolerance: tuple[float, float] | None = None

    def gives(self, code: str) -> bool:
        """Return whether a rewrite of the learner's code, run in the sandbox, gives autograd's
        answer on this case (to the exercise's tolerance)."""
        made = self.rerun(code)
        if made is None or made.shape != self.expected.shape:
            return False
        made = made.to(self.expected.dtype)
        return diagnose.compare("", made, self.expected, True, self.tolerance).approx
