"""The hints' detectors that rebuild a learner's likely wrong answer from tensors the grading
process holds (forward values, autograd's upstream gradients, the scenario's lines): a wrong
local derivative, a slip of indexing, a fused formula's terms, a product of sums, a neighbouring
step's factor, a branch's local derivative in part, an embedding's gradient routed to the wrong
rows. Each takes (the answer, its Clues) and returns a Found or None; hints.py declares the
order they are tried in. Learner code never runs here; a rewrite of it runs in the sandbox
(`Clues.rerun`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from grader import misconceptions as m
from grader.feedback import detectors, diagnose
from grader.misconceptions import Found, Remedy

if TYPE_CHECKING:
    from grader.grading.evidence import Clues

TINY = 1e-6  # a true gradient smaller than this has no sign or factor worth naming


def tiny(expected: torch.Tensor) -> bool:
    """Return whether the true gradient is too small for a sign or a factor to mean anything."""
    return float(expected.abs().max()) < TINY


def one_branch(clues: Clues, got: torch.Tensor):
    """Yield (consumer, its upstream gradient, the answer's and autograd's contributions
    through it): the whole answer for one consumer, else the rest taken off, one at a time."""
    if len(clues.upstream) == 1:
        consumer, upstream = next(iter(clues.upstream.items()))
        yield consumer, upstream, got, clues.expected
        return
    for missing, partial in clues.partials:
        if len(missing) == 1 and missing[0] in clues.upstream:
            rest = partial()
            yield missing[0], clues.upstream[missing[0]], got - rest, clues.expected - rest


def local(got: torch.Tensor, clues: Clues) -> Found | None:
    """The upstream gradient times a wrong local derivative (or none), summed like the
    gradient: the output for the input, the wrong factor, sigmoid's for tanh's."""
    if tiny(clues.expected):
        return None
    for consumer, upstream, mine, theirs in one_branch(clues, got):
        line = clues.lines.get(consumer, consumer)
        if detectors.local_only(mine, theirs, upstream):
            return _local_only(consumer, clues)
        found = detectors.local_derivative(mine, theirs, clues.values, upstream)
        if found is None:
            continue
        if found.twice:
            return Found(m.DERIVATIVE_TWICE, (f"d{consumer}", found.right, line))
        if found.used == "1":
            return Found(m.NO_LOCAL_DERIVATIVE, (f"d{consumer}", line, found.right))
        softmax = (
            _softmax_backward(consumer, line, upstream, theirs, clues) if not found.right else ""
        )
        said = (f"d{consumer}", found.used, line, found.right, softmax)
        return Found(m.WRONG_LOCAL_DERIVATIVE, said)
    return None


def _local_only(consumer: str, clues: Clues) -> Found:
    """The local derivative alone; the whole answer times the upstream gradient is the remedy
    when the consumer is the only one (checked by `local_only` before); with several, the
    sentence speaks of that consumer's branch."""
    upstream = f"d{consumer}"
    if len(clues.upstream) != 1:
        return Found(m.LOCAL_ONLY, (upstream, consumer))
    if clues.scope and upstream not in clues.scope:
        return Found(m.LOCAL_ONLY, (upstream,))
    line = f"{clues.answer} = {clues.answer} * {upstream}"
    return Found(m.LOCAL_ONLY, (upstream,), remedy=Remedy(line))


def _softmax_backward(consumer, line: str, upstream, theirs, clues: Clues) -> str:
    """Return a softmax's backward written with its output, when the line is a softmax and that
    formula gives autograd's contribution through it ("" otherwise)."""
    output = clues.values.get(consumer)
    if "softmax" not in line or output is None or output.shape != upstream.shape:
        return ""
    made = output * (upstream - (output * upstream).sum(-1, keepdim=True))
    if made.shape != theirs.shape or not diagnose.alike(made.to(theirs.dtype), theirs):
        return ""
    return f"{consumer} * (d{consumer} - ({consumer} * d{consumer}).sum(-1, keepdim=True))"


def indexing(got: torch.Tensor, clues: Clues) -> Found | None:
    """The targets' gradient scattered with `[:, Yb]`, `[Yb]`, to every column or alone."""
    found = detectors.index_slip(got, clues.expected, clues.values)
    return Found(m.INDEX_TARGETS, found) if found else None


def targets_only(got: torch.Tensor, clues: Clues) -> Found | None:
    """Right everywhere but at the targets' entries (`= -1` written for `-= 1`)."""
    found = detectors.target_entries(got, clues.expected, clues.values)
    return Found(m.TARGET_ENTRIES, (f"d{clues.target}", found)) if found else None


def zeros(got: torch.Tensor, clues: Clues) -> Found | None:
    """An answer of zeros where the true gradient is not: nothing was written into it, and,
    when the code assigns through chained indexing, that is why (indexed once, checked)."""
    if tiny(clues.expected) or not detectors.zeros_only(got, clues.expected):
        return None
    chained = detectors.index_once(clues.tree) if clues.tree is not None else []
    fixed = next((r for r in chained if clues.gives(r.code)), None)
    if fixed is not None:
        return Found(m.ZEROS_ONLY, (fixed.before, fixed.after), remedy=Remedy(fixed.code, True))
    return Found(m.ZEROS_ONLY, (chained[0].before,) if chained else ())


def swapped(got: torch.Tensor, clues: Clues) -> Found | None:
    """A formula with the targets' one-hot written with the wrong tensor (`logprobs`)."""
    found = detectors.swapped_tensor(got, clues.expected, clues.values)
    return Found(m.WRONG_TENSOR, found) if found else None


def terms(got: torch.Tensor, clues: Clues) -> Found | None:
    """A fused formula with one of its terms dropped, negated or rescaled (Bessel's factor
    misplaced); all the statistics' terms dropped is treating them as constants."""
    terms = clues.terms()
    factors = diagnose.factors(clues.n, dict(clues.sizes))
    wrong = detectors.terms_wrong(got, terms, factors, clues.expected)
    if not wrong:
        return None
    present = detectors.present_terms(terms, clues.expected)
    stats = tuple(name for name, _ in present if name)
    dropped = tuple(t.term for t in wrong if t.label == "0")
    if len(stats) > 1 and set(dropped) >= set(stats) and len(wrong) == len(dropped):
        return Found(m.STATS_CONSTANT, (tuple(s.strip("`") for s in stats),))
    return Found(m.FUSED_TERM, (wrong, clues.parts))


def reduction_dim(got: torch.Tensor, clues: Clues) -> Found | None:
    """A fused formula that sums over another dim than the forward pass's statistics."""
    ndim = clues.expected.dim()
    if not ndim or tiny(clues.expected):
        return None
    right = [d for d in clues.stat_dims() if -ndim <= d < ndim]
    kept = {d % ndim for d in right}
    wrong = [d for d in clues.reduced() if -ndim <= d < ndim and d % ndim not in kept]
    terms = clues.terms() if wrong and right else ()
    if not terms:
        return None
    shape, sizes = tuple(clues.expected.shape), dict(clues.sizes)
    stats = tuple(name.strip("`") for name, _ in terms[1:])
    said = [(d, diagnose.label(shape[d], sizes)) for d in (wrong[0], right[0])]
    tree = clues.tree
    rewrites = detectors.reduced_over(tree, set(wrong), right[0], True) if tree else []
    fixed = next((r for r in rewrites if clues.gives(r.code)), None)
    remedy = Remedy(fixed.code, True) if fixed else None
    return Found(m.FUSED_WRONG_DIM, (*said[0], *said[1], stats, bool(fixed)), remedy=remedy)


def sums(got: torch.Tensor, clues: Clues) -> Found | None:
    """A weight's gradient as the product of two batch sums."""
    found = detectors.sums_multiplied(got, clues.values, clues.upstream)
    if not found:
        return None
    value, upstream = clues.values[found[0]], clues.upstream[found[1]]
    flat = value.dim() > 2  # a time or group dim to flatten with the batch
    made = value.flatten(0, -2).T.to(upstream.dtype) @ upstream.flatten(0, -2)
    right = diagnose.alike(made.to(clues.expected.dtype), clues.expected)
    said = (found[0], f"d{found[1]}", flat, right)
    if not right or clues.scope and not {found[0], f"d{found[1]}"} <= clues.scope:
        return Found(m.SUMS_MULTIPLIED, said[:3] + (False,))
    product = detectors.sums_product(*said[:3])
    return Found(m.SUMS_MULTIPLIED, said, remedy=Remedy(f"{clues.answer} = {product}", True))


def softmax_dim(got: torch.Tensor, clues: Clues) -> Found | None:
    """Cross-entropy's `softmax - one-hot` with the softmax over the wrong dim."""
    found = detectors.softmax_dim(got, clues.expected, clues.values)
    if not found:
        return None
    tree, (_, wrong, right) = clues.tree, found
    calls = ("softmax", "log_softmax")
    rewrites = detectors.reduced_over(tree, {wrong, wrong - 2}, right, False, calls) if tree else []
    fixed = next((r for r in rewrites if clues.gives(r.code)), None)
    remedy = Remedy(fixed.code, True) if fixed else None
    return Found(m.SOFTMAX_WRONG_DIM, (*found, remedy is not None), remedy=remedy)


def missing_factor(got: torch.Tensor, clues: Clues) -> Found | None:
    """The gradient without a factor that is a tensor in scope (`rstd`), or with one more."""
    found = detectors.missing_factor(got, clues.expected, clues.values)
    if not found:
        return None
    name, left_out = found
    if clues.scope and name not in clues.scope:
        return Found(m.MISSING_FACTOR, found)
    line = f"{clues.answer} = {clues.answer} {'*' if left_out else '/'} {name}"
    return Found(m.MISSING_FACTOR, found, remedy=Remedy(line))


def neighbour(got: torch.Tensor, clues: Clues) -> Found | None:
    """The gradient times the next step's local derivative (one step too far), or times the
    previous step's, which the given upstream gradient already holds (a step applied again)."""
    if tiny(clues.expected) or not clues.neighbours:
        return None
    found = detectors.neighbour_step(got, clues.expected, clues.neighbours, clues.evaluate)
    if found is None:
        return None
    step = f"d{found.step}"
    said = (clues.answer, found.factor, found.line, step, found.following)
    return Found(m.NEIGHBOUR_STEP, said, remedy=_divided(found.factor, got, clues))


def _divided(factor: str, got: torch.Tensor, clues: Clues) -> Remedy | None:
    """Return the remedy that divides the factor out of the answer, when it gives autograd's
    answer (applied here to the answer) and reads only names in scope."""
    value = clues.evaluate(factor)
    if value is None or not clues.answer:
        return None
    made = got / (value.to(got.dtype) if isinstance(value, torch.Tensor) else value)
    names = detectors.names_in(factor)
    if clues.scope and not names <= clues.scope:
        return None
    if not bool(torch.isfinite(made).all()) or not diagnose.alike(made, clues.expected):
        return None
    return Remedy(f"{clues.answer} = {clues.answer} / ({factor})")


def partial(got: torch.Tensor, clues: Clues) -> Found | None:
    """A branch whose local derivative misses one of its factors (`2*bndiff` written `2`), or
    that is its local derivative alone, without the branch's upstream gradient (the max's
    one-hot not multiplied by `dlogit_maxes`)."""
    if tiny(clues.expected):
        return None
    for consumer, upstream, mine, theirs in one_branch(clues, got):
        line = clues.lines.get(consumer, consumer)
        alone = clues.alone.get(consumer)
        alone = alone() if alone is not None else None
        if alone is not None and _is_alone(mine, theirs, alone):
            made = detectors.to_shape(alone.to(upstream.dtype) * upstream, theirs.shape)
            times = made is not None and diagnose.alike(made.to(theirs.dtype), theirs)
            return Found(m.PARTIAL_DERIVATIVE, (f"d{consumer}", "", line, "", True, times))
        found = detectors.partial_factor(mine, upstream, line, clues.target, clues.evaluate)
        if found is not None:
            said = (f"d{consumer}", found.left_out, line, found.derivative, False)
            return Found(m.PARTIAL_DERIVATIVE, said)
    return None


def _is_alone(mine: torch.Tensor, theirs: torch.Tensor, alone: torch.Tensor) -> bool:
    """Return whether a branch's contribution is its local derivative alone (the upstream
    gradient left out), where that is not the branch's true contribution."""
    alone = alone.to(mine.dtype)
    return not diagnose.alike(alone, theirs) and bool(alone.any()) and diagnose.alike(mine, alone)


def routing(got: torch.Tensor, clues: Clues) -> Found | None:
    """An embedding's gradient routed to the wrong rows: repeats averaged or overwritten, a
    whole context sent to one character's row, one position only."""
    for consumer, line in clues.lines.items():
        index = detectors.gather_index(line, clues.target)
        if not index or index not in clues.values or consumer not in clues.upstream:
            continue
        found = detectors.routing(
            got, clues.expected, clues.values[index], clues.upstream[consumer]
        )
        if found is not None:
            loop = detectors.has_loop(clues.tree) if clues.tree is not None else False
            said = (f"d{clues.target}", index, f"d{consumer}", found.how, found.position)
            remedy = _accumulated(found.how, clues) if loop else None
            said += (found.positions, loop, remedy is not None)
            return Found(m.EMBEDDING_ROUTING, said, remedy=remedy)
    return None


def _accumulated(how: str, clues: Clues) -> Remedy | None:
    """Return the learner's loop with `+=` for `=`, when repeats were overwritten in a loop and
    that rewrite, run in the sandbox, gives autograd's answer."""
    if how != "overwritten" or clues.tree is None:
        return None
    fixed = next((r for r in detectors.accumulate(clues.tree) if clues.gives(r.code)), None)
    return Remedy(fixed.code, True) if fixed else None
