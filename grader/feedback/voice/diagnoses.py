"""The sentences of the detectors that rebuild a learner's likely wrong answer (a wrong local
derivative, indexing with the targets, a fused formula's terms, a product of sums), and of a
whole pass's root cause."""

from __future__ import annotations

from grader.feedback.voice.words import as_shape

__all__ = [
    "INDEXING",
    "hint_derivative_twice",
    "hint_fused_term",
    "hint_fused_wrong_dim",
    "hint_index_order",
    "hint_index_targets",
    "hint_local_only",
    "hint_missing_factor",
    "hint_no_local_derivative",
    "hint_power_kept",
    "hint_power_rule",
    "hint_softmax_wrong_dim",
    "hint_stats_constant",
    "hint_sums_multiplied",
    "hint_target_entries",
    "hint_wrong_local_derivative",
    "hint_wrong_tensor",
    "hint_zeros_only",
    "whole_pass_alias",
    "whole_pass_hidden",
    "whole_pass_root",
    "whole_pass_shape_slip",
    "whole_pass_values_match",
]


def hint_local_only(upstream: str = "", branch: str = "") -> str:
    by = f", `{upstream}`" if upstream else ""
    if branch:
        return (
            f"Hint: what flows back through `{branch}` is only its local derivative; that "
            f"branch needs its upstream gradient{by} too."
        )
    return f"Hint: that is only the local derivative; multiply it by the upstream gradient{by}."


def hint_derivative_twice(upstream: str, right: str, line: str) -> str:
    return (
        f"Hint: you applied the local derivative of `{line}`, {right}, twice; the chain rule "
        f"multiplies `{upstream}` by it once."
    )


def hint_power_kept(power: float) -> str:
    return (
        f"Hint: the power rule brings the exponent {power:g} down and lowers it by one: the "
        f"derivative of x**{power:g} is {power:g} * x**{power - 1:g}, not {power:g} * "
        f"x**{power:g}."
    )


def hint_power_rule(power: float) -> str:
    return (
        f"Hint: the power rule brings down the exponent {power:g}: the derivative of "
        f"x**{power:g} is {power:g} * x**{power - 1:g}."
    )


def hint_wrong_local_derivative(
    upstream: str, used: str, line: str, right: str, softmax: str = ""
) -> str:
    """A softmax's backward is written out only as `softmax`, checked to give the gradient."""
    rest = f"is {right}" if right and right != "1" else "is something else"
    if not right and "softmax" in line:
        rest = (
            "is not element-wise: each output of a softmax row moves with every input of the "
            "row, so subtract the row's sum of the output times its gradient"
        )
        rest += f", `{softmax}`" if softmax else ""
    return (
        f"Hint: you multiplied `{upstream}` by {used}, which is not the local derivative of "
        f"`{line}`; the local derivative there {rest}."
    )


def hint_no_local_derivative(upstream: str, line: str, right: str) -> str:
    there = f" (here {right})" if right and right != "1" else ""
    return (
        f"Hint: you passed `{upstream}` through unchanged, with no local derivative; multiply it "
        f"by the derivative of `{line}`{there}."
    )


INDEXING = {
    "columns": "`[:, {0}]` sends the gradient to the columns of every row's target, in every row",
    "rows": "`[{0}]` picks whole rows numbered by the targets, not one entry per row",
    "everywhere": "the gradient goes to every column, not only to each row's target",
    "alone": "only each row's target entry (from `{0}`) has a gradient; the other entries "
    "have one too",
    "left": "the gradient goes one column left of each row's target, to `{0} - 1`",
    "right": "the gradient goes one column right of each row's target, to `{0} + 1`",
    "column": "every row sends the gradient to one and the same column, not to its own target",
    "swapped": "`[{0}, range(n)]` has rows and columns in the wrong order: it writes row "
    "`{0}[i]`, column i",
}


def hint_index_targets(where: str, targets: str) -> str:
    return (
        f"Hint: the indexing with `{targets}` is wrong: {INDEXING[where].format(targets)}. "
        f"Row i has its target at column `{targets}[i]`: index with `[range(n), {targets}]`."
    )


def hint_index_order(targets: str, rows: str) -> str:
    return (
        f"Hint: the index `[{targets}, {rows}]` has rows and columns in the wrong order: "
        f"`{targets}` holds each row's target column, so it comes second: `[{rows}, {targets}]` "
        f"(row i, column `{targets}[i]`)."
    )


def hint_target_entries(name: str, targets: str) -> str:
    return (
        f"Hint: only the targets' entries, `{name}[range(n), {targets}]`, are wrong: check what "
        "your code writes there (`-=` subtracts from the entry, `=` overwrites it)."
    )


def hint_zeros_only(chained: str = "", fixed: str = "") -> str:
    """Chained indexing is named only where the code assigns through it (`chained`), and the
    line indexed once proposed only as `fixed`, checked to give the gradient."""
    if not chained:
        return "Hint: your answer is all zeros: nothing was written into it."
    said = (
        f"Hint: your answer is all zeros: nothing reached it. `{chained}` assigns through "
        "chained indexing, which writes into a copy"
    )
    return f"{said}; index once: `{fixed}`." if fixed else f"{said}."


def hint_softmax_wrong_dim(logits: str, dim: int, right: int, checked: bool = False) -> str:
    """`F.softmax(logits, right)` is written out only when the code so changed gave the
    gradient."""
    said = (
        f"Hint: your softmax runs over dim {dim}; cross-entropy's softmax runs over dim {right}, "
        "each row's own classes"
    )
    return f"{said}: `F.softmax({logits}, {right})`." if checked else f"{said}."


def hint_missing_factor(name: str, left_out: bool) -> str:
    if left_out:
        return f"Hint: your answer lacks the factor `{name}`: the gradient is yours times `{name}`."
    return f"Hint: your answer has one factor too many, `{name}`: leave it out."


def hint_wrong_tensor(used: str, right: str) -> str:
    return (
        f"Hint: your formula uses `{used}` where the gradient has `{right}`: the derivative of "
        f"the loss with respect to the logits is `{right}` minus the one-hot of the targets, "
        "over n."
    )


def _part(term: str, parts: tuple[tuple[str, str], ...]) -> str:
    """Name a term of a fused formula as the course does (its `parts`), else by its path."""
    named = dict(parts).get(term)
    if named:
        return named
    if term:
        return f"the part that flows back through `{term}`"
    return "the part with every batch statistic held constant"


def _term(wrong, parts: tuple[tuple[str, str], ...] = ()) -> str:
    """Say what is wrong with one term (a detectors.Term: its facts are fields)."""
    term = _part(wrong.term, parts)
    if wrong.label == "0":
        return f"leaves out {term}"
    if wrong.label == "-1":
        return f"flips the sign of {term}"
    said = f"scales {term} by {wrong.label}"
    if wrong.used and wrong.right:
        return f"{said}: it divides by `{wrong.used}` where the formula divides by `{wrong.right}`"
    if wrong.right:
        return f"{said}: its division by `{wrong.right}` (1/{wrong.right}) is missing"
    if wrong.used:
        return f"{said}: it divides by `{wrong.used}` once too often"
    return said


def hint_fused_term(wrong: tuple, parts: tuple[tuple[str, str], ...] = ()) -> str:
    said = "; it ".join(_term(t, parts) for t in wrong)
    k = next((t.bessel for t in wrong if t.bessel), "")
    extra = (
        f" (Bessel's {k}/({k}-1) comes from a variance divided by {k}-1, and belongs on the "
        "variance's term only)"
        if k
        else ""
    )
    return f"Hint: your formula {said}{extra}."


def hint_stats_constant(names: tuple[str, ...]) -> str:
    listed = " and ".join(f"`{n}`" for n in names)
    return (
        f"Hint: your formula treats {listed} as constants; each x_i also moves the batch "
        "statistics, so add the terms that flow back through them."
    )


def hint_fused_wrong_dim(
    wrong: int,
    wrong_name: str,
    right: int,
    right_name: str,
    stats: tuple[str, ...],
    checked: bool = False,
) -> str:
    """`.sum(right)` is proposed only when the code summed so, run, gave the gradient."""
    listed = " and ".join(f"`{s}`" for s in stats) or "the statistics"
    return (
        f"Hint: your formula sums over dim {wrong} ({wrong_name}), but {listed} reduce over dim "
        f"{right} ({right_name}) in the forward pass, so their gradients sum over dim {right}"
        + (f": write `.sum({right}, keepdim=True)`." if checked else ".")
    )


def hint_sums_multiplied(
    value: str, upstream: str, flat: bool = False, checked: bool = False
) -> str:
    """The product is written out only when it was checked to be the gradient."""
    said = (
        f"Hint: you multiplied the batch sums of `{value}` and `{upstream}`; the gradient is the "
        "sum over the batch of one outer product per example"
    )
    if not checked:
        return f"{said}."
    product = (
        f"{value}.flatten(0, -2).T @ {upstream}.flatten(0, -2)"
        if flat
        else f"{value}.T @ {upstream}"
    )
    return f"{said}: `{product}`."


def whole_pass_root(name: str) -> str:
    return f"`{name}` is the first wrong gradient in backward order; fix it first."


def whole_pass_alias(new: str, old: str, line: int, changed: int) -> str:
    return (
        f"`{new}` and `{old}` are one tensor since line {line} (`{new} = {old}`), so the "
        f"in-place change on line {changed} changed both. Write `{new} = {old}.clone()`."
    )


def whole_pass_shape_slip(name: str, got, expected, lecture_line: bool) -> str:
    own = "This is the lecture's own line. " if lecture_line else ""
    return (
        f"`{name}` has the right values in shape {as_shape(got)}, expected {as_shape(expected)}. "
        f"{own}The lecture's `cmp` calls it exact because `==` broadcasts {as_shape(got)} "
        f"against {as_shape(expected)}; a gradient has its variable's shape: sum with "
        "keepdim=True. The gradients after it are not affected."
    )


def whole_pass_values_match(count: int, slips: tuple[str, ...]) -> str:
    shapes = "one shape" if len(slips) == 1 else f"{len(slips)} shapes"
    return (
        f"All {count} gradients have autograd's values, as the lecture's `cmp` says; "
        f"{shapes} to fix:"
    )


def whole_pass_hidden(name: str, hint: str) -> str:
    text = (
        f"`{name}` matches autograd here only because one of its upstream gradients is almost "
        f"zero on this batch; graded on its own with random upstream gradients, your lines for "
        f"`{name}` are wrong."
    )
    return f"{text} {hint}".strip()
