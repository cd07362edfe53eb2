"""Every learner-facing message, one function per kind, in one voice.

The learner's variable comes first, in backticks; one present-tense sentence; evidence as
"got …, expected …"; an optional second sentence starting "Hint:". Never the reference tensor.
"""

from __future__ import annotations

from grader import misconceptions as m
from grader.misconceptions import Found

GRADER_FAULT = "The grader failed; this is not a problem with your code."


def _shape(shape) -> str:
    """Format a shape the way torch users write it: (32, 1), (64,), ()."""
    shape = tuple(shape)
    return f"({shape[0]},)" if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"


def looks_good(name: str, maxdiff: float) -> str:
    return f"`{name}` looks good (max diff {maxdiff:.1e})."


def inconclusive(name: str, largest: float) -> str:
    return (
        f"Cannot tell on the main batch: the true `{name}` is float noise (at most "
        f"{largest:.1e}), and so is yours. The random upstream gradients decide."
    )


def exact(name: str) -> str:
    return f"`{name}` matches autograd exactly."


def passes_sizes(name: str, sizes: dict) -> str:
    shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
    return f"`{name}` is also right with {shown}."


def batch_solved(name: str) -> str:
    """A solved answer as a gradebook's summary says it (not the last check's sentence)."""
    return (
        f"`{name}` is solved: it matches autograd on the main batch, with random upstream "
        "gradients and at other sizes."
    )


def random_ok(name: str) -> str:
    return f"`{name}` is right for random upstream gradients too."


def not_defined(name: str) -> str:
    return f"`{name}` is not defined: assign your answer to `{name}`."


def not_tensor(name: str, problem: str, expected=None) -> str:
    wanted = "a torch.Tensor" if expected is None else f"a float tensor of shape {_shape(expected)}"
    return f"`{name}` {problem}: expected {wanted}."


def wrong_dtype(name: str, got: str, expected: str) -> str:
    return f"`{name}` has the wrong dtype: got {got}, expected {expected}."


def wrong_shape(
    name: str, got, expected, got_named: str = "", expected_named: str = "", why: str = ""
) -> str:
    def shown(shape, named: str) -> str:
        return f"{_shape(shape)} = {named}" if named and named != _shape(shape) else _shape(shape)

    evidence = f"got {shown(got, got_named)}, expected {shown(expected, expected_named)}."
    return f"`{name}` has the wrong shape: {_then(why, evidence)}"


def not_finite(name: str, count: int, index: tuple) -> str:
    return f"`{name}` has {count} non-finite values (nan or inf), the first at {index}."


def inaccurate(
    name: str,
    maxdiff: float,
    index: tuple,
    tol: tuple[float, float],
    scale: float | None = None,
    why: str = "",
) -> str:
    """Say the values are wrong; `why` (a diagnosis, `diagnosis(found)`) comes first, the
    numbers after it."""
    atol, rtol = tol
    verdict = "is inaccurate" if _roundoff(maxdiff, scale) and not why else "has wrong values"
    numbers = (
        f"max abs diff {maxdiff:.1e} at {index}; tolerance {atol:.0e} + {rtol:.0e} × "
        "|autograd's value|."
    )
    return f"`{name}` {verdict}: {_then(why, numbers)}"


def _then(why: str, evidence: str) -> str:
    """Put a diagnosis first and the evidence after it, as a sentence of its own."""
    return f"{why} {evidence[0].upper()}{evidence[1:]}" if why else evidence


WRONG = 1e-3  # a difference above this is a wrong value, not round-off
ROUNDOFF_ULPS = 256  # float32 units at the gradient's scale within which a slip is round-off


def _roundoff(maxdiff: float, scale: float | None) -> bool:
    """Return whether a difference is of the size of float rounding at the gradient's scale
    (without a scale, of at most WRONG)."""
    if scale is None:
        return maxdiff <= WRONG
    return maxdiff <= ROUNDOFF_ULPS * 1.2e-7 * max(scale, 1e-12)


def form_ok(name: str, shape) -> str:
    return f"`{name}` is a float tensor of shape {_shape(shape)} with finite values."


def runs_ok() -> str:
    return "Your code ran without errors."


def rules_ok() -> str:
    return "Your code computes the gradient by hand."


def uses_autograd(what: str, line: int | None, dynamic: bool = False) -> str:
    where = f" on line {line}" if line else ""
    if dynamic:
        return (
            f"Your code uses `{what}`{where}, which can reach autograd in ways the grader cannot "
            "check; write the gradient with plain tensor operations."
        )
    return f"Your code uses autograd (`{what}`){where}; write the gradient by hand."


def outside_language(construct: str, line: int | None, dynamic: bool = False) -> str:
    if dynamic:
        return uses_autograd(construct, line, dynamic=True)
    where = f" on line {line}" if line else ""
    return (
        f"`{construct}`{where} is not part of the exercise language: write the gradient with "
        "tensor operations (see the list)."
    )


def hint_outside_language(nearest: tuple[str, ...] = ()) -> str:
    if not nearest:
        return ""
    return f"Hint: the nearest in the exercise language: {', '.join(f'`{n}`' for n in nearest)}."


def raised(kind: str, line: int | None, why: str = "") -> str:
    """Say the code raised; the traceback follows, after the diagnosis when there is one."""
    where = f" on line {line}" if line else ""
    return f"Your code raised {kind}{where}: {why}" if why else f"Your code raised {kind}{where}:"


def raised_at(kind: str, line: int | None, sizes: dict, why: str = "") -> str:
    where = f" on line {line}" if line else ""
    shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
    return (
        f"Your code raised {kind}{where} with {shown}: {why}"
        if why
        else (f"Your code raised {kind}{where} with {shown}.")
    )


def syntax_error(message: str, line: int | None, column: int | None) -> str:
    return f"Your code has a syntax error on line {line}, column {column}: {message}."


def unreadable(reason: str) -> str:
    return f"Your code cannot be graded: {reason}."


def skipped(reason: str) -> str:
    return f"Not checked: {reason}."


# Hints: the second sentence, tied to the failed check.


def hint_unknown_name(name: str, available: list[str]) -> str:
    return f"Hint: `{name}` is not available here; you can use {', '.join(available)}."


def hint_sum_dims(dims: tuple[int, ...], keepdim: bool) -> str:
    which = ", ".join(map(str, dims))
    keep = " with keepdim=True" if keepdim else ""
    return (
        f"Hint: the forward pass broadcast this tensor along dim {which}; "
        f"sum the gradient over dim {which}{keep}."
    )


def hint_keepdim(values_right: bool = True) -> str:
    if values_right:
        return "Hint: the values are right but a dimension was dropped; sum with keepdim=True."
    return "Hint: a dimension was dropped; sum with keepdim=True."


def hint_reshape(expected, named: str = "") -> str:
    shown = (
        f"{_shape(expected)} = {named}" if named and named != _shape(expected) else _shape(expected)
    )
    return f"Hint: the answer must have the shape of the tensor itself, {shown}."


def hint_wrong_sum(
    keep: str, kept: str, dim: int | None = None, wrong_dim: int | None = None, keepdim=False
) -> str:
    if dim is None:
        return (
            f"Hint: you summed over the wrong dim: the gradient keeps one value per {keep}, "
            f"yours one per {kept}; sum over the {kept} dim and keep the {keep} one."
        )
    keep_text = " with keepdim=True" if keepdim else ""
    return (
        f"Hint: you summed over the wrong dim: the gradient keeps one value per {keep}, "
        f"yours one per {kept}; sum over dim {dim} ({kept}){keep_text}, not dim {wrong_dim} "
        f"({keep})."
    )


def hint_broadcast_back(expected_named: str, dims: list[int], names: list[str]) -> str:
    where = " and ".join(f"dim {d} ({name})" for d, name in zip(dims, names, strict=True))
    return (
        f"Hint: the gradient has the shape of its variable, {expected_named}, but yours has "
        f"size 1 in {where}: do not sum there; every element has its own gradient (broadcast "
        "it back with `torch.ones_like(...) *` or `.expand_as(...)`)."
    )


def hint_matmul(left: str, right: str, inner_left: str, inner_right: str) -> str:
    return (
        f"Hint: `@` multiplies {left} by {right}: the inner sizes, {inner_left} and "
        f"{inner_right}, must match. Transpose one of them (e.g. `W.T`) or swap the order."
    )


def hint_broadcast_clash(a: str, b: str, dim: int) -> str:
    return (
        f"Hint: two tensors of this line do not broadcast: {a} against {b} in dim {dim}. "
        "For a matrix product use `@`; otherwise check which dims you summed or transposed."
    )


def hint_bad_view(target: str, count: int) -> str:
    return (
        f"Hint: a view keeps the number of elements: {target} does not hold {count:,}; "
        "take the sizes from the tensors (`emb.shape`, `n`) instead of typing them."
    )


def hint_branch_sign(consumer: str) -> str:
    return f"Hint: the contribution that flows back through `{consumer}` has the opposite sign."


def hint_branch_factor(consumer: str, label: str) -> str:
    return (
        f"Hint: the contribution that flows back through `{consumer}` is off by a constant "
        f"factor of {label}."
    )


def hint_all_zero(largest: float) -> str:
    return (
        f"Hint: your answer is all zeros; the true gradient is only almost zero on the main "
        f"batch (at most {largest:.1e}) and not for other upstream gradients: compute it from "
        "the upstream gradient."
    )


def hint_values_right_shape_wrong(expected) -> str:
    return f"Hint: the values are right; only the shape is wrong (expected {_shape(expected)})."


def hint_transpose() -> str:
    return "Hint: your answer is the transpose of the gradient; check the order of the matmul."


def hint_sign() -> str:
    return "Hint: your answer has the right size but the opposite sign."


def hint_factor(label: str) -> str:
    return f"Hint: your answer is off by a constant factor of {label}."


def hint_missing_consumer(target: str, missing: tuple[str, ...]) -> str:
    names = " and by ".join(f"`{m}`" for m in missing)
    return f"Hint: `{target}` is also used by {names}; add that contribution too."


def hint_where(rows: tuple[int, ...], cols: tuple[int, ...]) -> str:
    return f"Hint: the differences are in rows {_few(rows)} and columns {_few(cols)}."


def hint_masked(count: int) -> str:
    return (
        f"Hint: your answer is right except at {count:,} places where the gradient is exactly "
        "zero: the forward pass overwrote those values (a mask), so nothing flows back there."
    )


def hint_random_only() -> str:
    return (
        "Hint: your answer is right on the main batch but not for other upstream gradients; "
        "multiply by the upstream gradient instead of relying on its values."
    )


def hint_hard_coded(sizes: tuple[tuple[str, int], ...] = ()) -> str:
    """The main batch's own sizes (name, value) are quoted, never another course's numbers."""
    numbers = list(dict.fromkeys(str(v) for _, v in sizes if isinstance(v, int) and v > 1))
    like = f" like {_or(numbers)}" if numbers else ""
    n = "n, " if any(k == "n" for k, _ in sizes) else ""
    return (
        "Hint: your answer is right for the main batch's sizes but not for others, so a size "
        f"is hard-coded; use {n}shapes of tensors or keepdim instead of numbers{like}."
    )


def _or(words: list[str]) -> str:
    """Join words as "a, b or c"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def hint_zero_by_coincidence(largest: float) -> str:
    return (
        f"Hint: the true gradient is almost zero here (at most {largest:.1e}), so zeros pass on "
        "one batch by coincidence; compute it from the upstream gradient instead."
    )


def hint_autograd() -> str:
    return "Hint: derive the local derivative and multiply by the upstream gradient."


def hint_nonfinite() -> str:
    return "Hint: look for a division by zero or a log of zero."


def hint_local_only(upstream: str = "") -> str:
    by = f", `{upstream}`" if upstream else ""
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


def hint_wrong_local_derivative(upstream: str, used: str, line: str, right: str) -> str:
    rest = f"is {right}" if right and right != "1" else "is something else"
    if not right and "softmax" in line:
        rest = (
            "is not element-wise: each output of a softmax row moves with every input of the "
            "row, so subtract the row's sum of the output times its gradient, "
            f"`{upstream[1:]} * ({upstream} - ({upstream[1:]} * {upstream}).sum(-1, keepdim=True))`"
        )
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


def hint_fused_wrong_dim(
    wrong: int, wrong_name: str, right: int, right_name: str, stats: tuple[str, ...]
) -> str:
    listed = " and ".join(f"`{s}`" for s in stats) or "the statistics"
    return (
        f"Hint: your formula sums over dim {wrong} ({wrong_name}), but {listed} reduce over dim "
        f"{right} ({right_name}) in the forward pass, so their gradients sum over dim {right}: "
        f"write `.sum({right}, keepdim=True)`."
    )


def hint_target_entries(name: str, targets: str) -> str:
    return (
        f"Hint: only the targets' entries, `{name}[range(n), {targets}]`, are wrong: check what "
        "your code writes there (`-=` subtracts from the entry, `=` overwrites it)."
    )


def hint_zeros_only() -> str:
    return (
        "Hint: your answer is all zeros: nothing reached it. An assignment through chained "
        "indexing (`a[range(n)][Yb] = ...`) writes into a copy: index once, `a[range(n), Yb]`."
    )


def hint_matmul_for_sum() -> str:
    return (
        "Hint: the diagonal of your answer is the gradient: `@` multiplied every column by "
        "every other one, but the forward pass multiplies element by element: use `*`, then "
        "sum over the batch (dim 0)."
    )


def hint_softmax_wrong_dim(logits: str, dim: int, right: int) -> str:
    return (
        f"Hint: your softmax runs over dim {dim}; cross-entropy's softmax runs over dim {right}, "
        f"each row's own classes: `F.softmax({logits}, {right})`."
    )


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


def _term(wrong) -> str:
    """Say what is wrong with one term (a candidates.Term: its facts are fields)."""
    term = f"the term through `{wrong.term}`" if wrong.term else "the direct term"
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


def hint_fused_term(wrong: tuple) -> str:
    said = "; it ".join(_term(t) for t in wrong)
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


def hint_sums_multiplied(value: str, upstream: str, flat: bool = False) -> str:
    product = (
        f"`{value}.flatten(0, -2).T @ {upstream}.flatten(0, -2)`"
        if flat
        else f"`{value}.T @ {upstream}`"
    )
    return (
        f"Hint: you multiplied the batch sums of `{value}` and `{upstream}`; the gradient is the "
        f"sum over the batch of one outer product per example: {product}."
    )


def hint_matmul_for_elementwise(left: str = "", right: str = "") -> str:
    factors = f"{left} and {right}" if left else "the two factors"
    return (
        f"Hint: `@` is a matrix product, but {factors} multiply element by element in "
        "the forward pass: use `*` (and sum over any dim that was broadcast)."
    )


def hint_power_rule(power: float) -> str:
    return (
        f"Hint: the power rule brings down the exponent {power:g}: the derivative of "
        f"x**{power:g} is {power:g} * x**{power - 1:g}."
    )


def hint_summed_everything(dims: tuple[int, ...]) -> str:
    return (
        "Hint: `.sum()` adds up every entry into one number; the forward pass broadcast only "
        f"over dim {', '.join(map(str, dims))}, so sum over that dim alone."
    )


def hint_formula_wrong() -> str:
    return (
        "Hint: almost every entry differs, so the formula is wrong, not an index: check each "
        "local derivative."
    )


def hint_index_add_shape(dim: int = 0) -> str:
    along = (
        f"Hint: `index_add_({dim}, ...)` adds along dim {dim}, but the rows of `C` are the "
        "characters: add along dim 0. "
        if dim
        else "Hint: "
    )
    return (
        f"{along}`index_add_` adds one row of the source per index: flatten the index "
        "(`Xb.view(-1)`) and the source to one row per index (`demb.view(-1, n_embd)`)."
    )


def hint_pair_not_taken(function: str) -> str:
    return (
        f"Hint: `.{function}(dim)` returns a pair, (values, indices), not a tensor: take "
        f"`.{function}(1).indices` (or `.values`)."
    )


def hint_index_dims() -> str:
    return (
        "Hint: `scatter_` and `gather` need an index with as many dimensions as the tensor: "
        "give the targets a column, `Yb.view(-1, 1)` (or `Yb.unsqueeze(1)`)."
    )


def hint_method_not_called() -> str:
    return (
        "Hint: a method used without its call, such as `W.t` for `W.t()`, is a function, not "
        "a tensor: call it, or use the attribute `W.T`."
    )


def hint_transpose_no_dims() -> str:
    return (
        "Hint: `transpose` needs the two dims to swap, `W.transpose(0, 1)`; for a matrix, "
        "`W.T` is the same."
    )


def hint_index_out_of_range(index: int, dim: int, size: str) -> str:
    return (
        f"Hint: an index reaches {index} in dim {dim}, which has size {size}: check which index "
        "goes in which dim: rows first, then columns, as in `[range(n), Yb]` (row i, column "
        "`Yb[i]`)."
    )


def hint_max_wrong_dim() -> str:
    return (
        "Hint: `F.one_hot` got a class index of num_classes or more. The forward pass took "
        "each row's max over dim 1 (`max(1)`), whose indices are columns; `max(0)` gives rows."
    )


def hint(found: Found | None) -> str:
    """Return the hint sentence for a misconception found (its instructor's, if it has one)."""
    if found is None:
        return ""
    return found.said or SENTENCES[found.misconception](*found.args)


HINT = "Hint: "
# Found, but not a mistake named: where the values differ is evidence, said after the numbers.
NOT_A_DIAGNOSIS = (m.WRONG_VALUES,)


def diagnosis(found: Found | None) -> str:
    """Return the misconception found as the first sentence's diagnosis (its hint without the
    "Hint: " head), or "" when nothing is named: the check's evidence then comes first."""
    if found is None or found.misconception in NOT_A_DIAGNOSIS:
        return ""
    return hint(found).removeprefix(HINT)


def _few(items: tuple[int, ...], limit: int = 6) -> str:
    """List a few indices, saying how many more there are."""
    shown = ", ".join(map(str, items[:limit]))
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


# The sentence of each misconception id (grader/misconceptions.py), given its Found's args.
SENTENCES = {
    m.AUTOGRAD: hint_autograd,
    m.UNKNOWN_NAME: hint_unknown_name,
    m.MATMUL_SHAPES: hint_matmul,
    m.BROADCAST_CLASH: hint_broadcast_clash,
    m.BAD_VIEW: hint_bad_view,
    m.NON_FINITE: hint_nonfinite,
    m.KEEPDIM_LOST: hint_keepdim,
    m.BROADCAST_NOT_SUMMED: hint_sum_dims,
    m.SUMMED_WRONG_DIM: hint_wrong_sum,
    m.SUMMED_NOT_BROADCAST: hint_broadcast_back,
    m.WRONG_SHAPE: hint_reshape,
    m.VALUES_RIGHT_SHAPE_WRONG: hint_values_right_shape_wrong,
    m.TRANSPOSED: hint_transpose,
    m.LISTED_MISTAKE: lambda: "",  # an exercise's listed mistake says its own sentence
    m.MISSING_BRANCH: hint_missing_consumer,
    m.BRANCH_SIGN_FLIPPED: hint_branch_sign,
    m.BRANCH_FACTOR: hint_branch_factor,
    m.SIGN_FLIPPED: hint_sign,
    m.BESSEL: hint_factor,
    m.CONSTANT_FACTOR: hint_factor,
    m.MASK_IGNORED: hint_masked,
    m.WRONG_VALUES: hint_where,
    m.ALL_ZERO: hint_all_zero,
    m.UPSTREAM_IGNORED: hint_random_only,
    m.HARD_CODED_SIZE: hint_hard_coded,
    m.ZERO_BY_COINCIDENCE: hint_zero_by_coincidence,
    m.LOCAL_ONLY: hint_local_only,
    m.WRONG_LOCAL_DERIVATIVE: hint_wrong_local_derivative,
    m.NO_LOCAL_DERIVATIVE: hint_no_local_derivative,
    m.INDEX_TARGETS: hint_index_targets,
    m.FUSED_TERM: hint_fused_term,
    m.STATS_CONSTANT: hint_stats_constant,
    m.SUMS_MULTIPLIED: hint_sums_multiplied,
    m.MATMUL_FOR_ELEMENTWISE: hint_matmul_for_elementwise,
    m.POWER_RULE: hint_power_rule,
    m.SUMMED_EVERYTHING: hint_summed_everything,
    m.FORMULA_WRONG: hint_formula_wrong,
    m.INDEX_ADD_SHAPE: hint_index_add_shape,
    m.MAX_WRONG_DIM: hint_max_wrong_dim,
    m.WRONG_TENSOR: hint_wrong_tensor,
    m.PAIR_NOT_TAKEN: hint_pair_not_taken,
    m.DERIVATIVE_TWICE: hint_derivative_twice,
    m.TARGET_ENTRIES: hint_target_entries,
    m.ZEROS_ONLY: hint_zeros_only,
    m.MATMUL_FOR_SUM: hint_matmul_for_sum,
    m.SOFTMAX_WRONG_DIM: hint_softmax_wrong_dim,
    m.MISSING_FACTOR: hint_missing_factor,
    m.POWER_KEPT: hint_power_kept,
    m.INDEX_DIMS: hint_index_dims,
    m.METHOD_NOT_CALLED: hint_method_not_called,
    m.TRANSPOSE_NO_DIMS: hint_transpose_no_dims,
    m.INDEX_OUT_OF_RANGE: hint_index_out_of_range,
    m.FUSED_WRONG_DIM: hint_fused_wrong_dim,
    m.INDEX_ORDER: hint_index_order,
    m.OUTSIDE_LANGUAGE: hint_outside_language,
}


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
        f"`{name}` has the right values in shape {_shape(got)}, expected {_shape(expected)}. "
        f"{own}The lecture's `cmp` calls it exact because `==` broadcasts {_shape(got)} "
        f"against {_shape(expected)}; a gradient has its variable's shape: sum with "
        "keepdim=True. The gradients after it are not affected."
    )


def cmp_printed(label: str, cmp, message: str) -> str:
    if cmp is None:
        return f"{label:15s} | {message}"
    return (
        f"{label:15s} | exact: {str(cmp.exact):5s} | approximate: {str(cmp.approx):5s} | "
        f"maxdiff: {cmp.maxdiff}"
    )


def wrong_with(name: str, sizes: dict) -> str:
    shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
    return f"`{name}` is wrong with {shown}."


def whole_pass_hidden(name: str, hint: str) -> str:
    text = (
        f"`{name}` matches autograd here only because one of its upstream gradients is almost "
        f"zero on this batch; graded on its own with random upstream gradients, your lines for "
        f"`{name}` are wrong."
    )
    return f"{text} {hint}".strip()


def scratch_ran(count: int) -> str:
    made = "nothing to show" if not count else f"{count} name{'s' if count != 1 else ''}"
    return f"Ran on the main batch (not graded): {made}."


def whole_pass_solved(count: int) -> str:
    return f"All {count} gradients match autograd."


# Exercise 4: training with the learner's own backward pass.


def duration(seconds: float) -> str:
    """Format a duration the way people say it: 8.2 s, 3 min 5 s, 1 h 2 min."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s"
    return f"{minutes // 60} h {minutes % 60} min"


def _listed(names: tuple[str, ...]) -> str:
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def unfinished(names: tuple[str, ...]) -> str:
    verb = "is" if len(names) == 1 else "are"
    return f"{_listed(names)} {verb} still `...`; write the missing gradients before training."


def training_check_passed() -> str:
    return "All seven gradients match autograd; training can start."


def training_check_root(name: str) -> str:
    return f"`{name}` does not match autograd; training starts once all seven gradients do."


def training_raised(kind: str, line: int | None, step: int) -> str:
    where = f" on line {line}" if line else ""
    return f"Your code raised {kind}{where} at step {step:,}:"


def training_bad_gradient(detail: str, step: int) -> str:
    return f"{detail} Training stopped at step {step:,}."


def nonfinite_loss(value: str, step: int) -> str:
    return (
        f"`loss` is {value} at step {step:,}, so training stopped. Hint: a gradient is wrong "
        "or too large for the learning rate; check the gradients again or lower the rate."
    )


def training_stopped(step: int, steps: int) -> str:
    return f"Training stopped at step {step:,} of {steps:,}, as you asked."


def training_session_ended(step: int) -> str:
    return f"Training stopped at step {step:,}: the browser session ended."


def training_interrupted(step: int, steps: int) -> str:
    return (
        f"Training was interrupted at step {step:,} of {steps:,}: the worker running it stopped"
        " answering. Start it again when you are ready."
    )


def training_queued(position: int) -> str:
    ahead = "no run" if position <= 1 else f"{position - 1:,} run" + ("s" if position > 2 else "")
    return (
        f"Your run is waiting for a free worker: position {position:,} in the queue"
        f" ({ahead} ahead)."
    )


def training_stopped_queued() -> str:
    return "Training stopped before it started, as you asked."


def training_finished(steps: int, seconds: float) -> str:
    return f"Training finished: {steps:,} steps in {duration(seconds)}."


def training_too_slow(limit: float, steps_per_s: float, steps: int) -> str:
    need = f"; at {steps_per_s:,.0f} steps/s, {steps:,} steps take about "
    need += duration(steps / steps_per_s) if steps_per_s > 0 else "longer"
    return (
        f"Training did not finish within {duration(limit)}{need}. Hint: make your backward "
        "pass faster, or train for fewer steps."
    )


def training_busy(count: int) -> str:
    return f"The trainer is busy with {count} runs; try again when one of them finishes."


def model_not_finite() -> str:
    return "The trained parameters hold nan or inf values, so the model cannot be evaluated."


def loop_advice(line: int, loop_ms: float, add_ms: float, rate: float, projected: float) -> str:
    measured = (
        f"`dC` is accumulated in a Python loop (line {line}): measured here, a training step "
        f"takes {loop_ms:.2f} ms with the lecture's double loop and {add_ms:.2f} ms with "
        f"`index_add_`."
    )
    if projected < 1.1 * rate:  # a busy machine can hide the loop's cost; promise no speed-up
        return (
            f"{measured} On this machine the loop cost little this time; `index_add_` on the "
            f"flattened `Xb` and `demb` is still the one-line form."
        )
    return (
        f"{measured} Hint: with `index_add_` on the flattened `Xb` and `demb`, your training "
        f"would run at about {projected:,.0f} steps/s instead of {rate:,.0f} "
        f"({projected / rate:.1f}x faster)."
    )


def speed_comparison(yours: float, autograd: float) -> str:
    ratio = yours / autograd
    faster = f"{ratio:.2f}x faster" if ratio >= 1 else f"{1 / ratio:.2f}x slower"
    return (
        f"Your backward pass trained at {yours:,.0f} steps/s and autograd's at "
        f"{autograd:,.0f} steps/s: yours is {faster}."
    )


def reference_running(step: int, steps: int) -> str:
    return f"The autograd reference is training with the same settings: step {step:,} of {steps:,}."


# Notebooks: the learner's own Jupyter notebook of the lecture, graded part by part.


def notebook_not_json(name: str, detail: str) -> str:
    return f"`{name}` is not a Jupyter notebook: it is not JSON ({detail})."


def notebook_malformed(name: str, detail: str) -> str:
    return f"`{name}` is not a valid Jupyter notebook: {detail}."


def notebook_too_large(name: str, limit_mib: int) -> str:
    return f"`{name}` is larger than {limit_mib} MiB; clear its outputs and try again."


def notebook_too_deep(name: str, levels: int, limit: int) -> str:
    return f"`{name}` nests its JSON {levels:,} levels deep; the limit is {limit}."


def notebook_too_many_cells(name: str, count: int, limit: int) -> str:
    return f"`{name}` has {count:,} cells; the limit is {limit:,}."


def notebook_cell_too_long(name: str, cell: int, chars: int, limit: int) -> str:
    return (
        f"Cell {cell} of `{name}` holds {chars:,} characters of code; "
        f"the limit is {limit:,} per cell."
    )


def notebook_too_much_code(name: str, chars: int, limit: int) -> str:
    return f"`{name}` holds {chars:,} characters of code; the limit is {limit:,}."


def notebook_over_reader_limit(name: str, limit: str) -> str:
    return f"`{name}` could not be read within {limit}; it is too costly to grade."


def notebook_not_lecture(name: str) -> str:
    return (
        f"`{name}` is not the lecture's notebook: none of its code cells has the lecture's "
        "forward pass or exercises. Hint: grade the notebook of the backprop ninja lecture."
    )


def notebook_no_exercises(name: str) -> str:
    return (
        f"`{name}` has the lecture's forward pass but none of its exercise cells (the "
        "`cmp('logprobs', ...)` cell, `dlogits`, `dhprebn`, the `# manual backprop!` section)."
    )


def notebook_nothing_written(name: str, titles: tuple[str, ...]) -> str:
    return f"`{name}` has no answer yet: {', '.join(titles)} still hold the lecture's blanks."


def notebook_unfilled(title: str) -> str:
    return f"{title} is not written yet: its cell still holds the lecture's blank."


def notebook_missing(title: str) -> str:
    return f"{title} has no cell in this notebook, so it is not graded."


def notebook_solved(count: int) -> str:
    return f"All {count} exercises of the notebook are solved."


def notebook_left(titles: tuple[str, ...]) -> str:
    return f"Not solved yet: {', '.join(titles)}."
