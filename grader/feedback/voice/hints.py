"""The second sentence, "Hint: …", tied to the failed check: a shape to sum or keep, a PyTorch
error in the learner's sizes, a sign, a factor, a consumer left out, where the values differ."""

from __future__ import annotations

from grader.feedback.voice.words import as_shape

__all__ = [
    "hint_all_zero",
    "hint_autograd",
    "hint_bad_view",
    "hint_branch_factor",
    "hint_branch_sign",
    "hint_broadcast_back",
    "hint_broadcast_clash",
    "hint_factor",
    "hint_hard_coded",
    "hint_index_add_shape",
    "hint_index_dims",
    "hint_index_out_of_range",
    "hint_keepdim",
    "hint_masked",
    "hint_matmul",
    "hint_matmul_for_elementwise",
    "hint_matmul_for_sum",
    "hint_max_wrong_dim",
    "hint_method_not_called",
    "hint_missing_consumer",
    "hint_nonfinite",
    "hint_outside_language",
    "hint_pair_not_taken",
    "hint_random_only",
    "hint_reshape",
    "hint_sign",
    "hint_sum_dims",
    "hint_summed_everything",
    "hint_transpose",
    "hint_transpose_no_dims",
    "hint_unknown_name",
    "hint_values_right_shape_wrong",
    "hint_wrong_sum",
    "hint_zero_by_coincidence",
]


def hint_unknown_name(name: str, available: list[str]) -> str:
    return f"Hint: `{name}` is not available here; you can use {', '.join(available)}."


def hint_sum_dims(dims: tuple[int, ...], keepdim: bool) -> str:
    which = ", ".join(map(str, dims))
    keep = " with keepdim=True" if keepdim else ""
    return (
        f"Hint: the forward pass broadcast this tensor along dim {which}; "
        f"sum the gradient over dim {which}{keep}."
    )


def hint_keepdim(values_right: bool = True, lectures_own: bool = False) -> str:
    if values_right and lectures_own:
        return (
            "Hint: this is the lecture's own line: the values are right, but the sum dropped the "
            "dim of size 1. The lecture's `cmp` calls it exact because `==` broadcasts; a "
            "gradient has its variable's shape: sum with keepdim=True."
        )
    if values_right:
        return "Hint: the values are right but a dimension was dropped; sum with keepdim=True."
    return (
        "Hint: a dimension of size 1 was dropped (as a sum without keepdim=True drops it), and "
        "the values are wrong too."
    )


def hint_reshape(expected, named: str = "") -> str:
    shown = (
        f"{as_shape(expected)} = {named}"
        if named and named != as_shape(expected)
        else as_shape(expected)
    )
    return f"Hint: the answer must have the shape of the tensor itself, {shown}."


def hint_wrong_sum(
    keep: str,
    kept: str,
    dim: int | None = None,
    wrong_dim: int | None = None,
    keepdim=False,
    checked: bool = False,
) -> str:
    """The dim to sum over is said only when the code summed over it gave the gradient."""
    if dim is None or not checked:
        return (
            f"Hint: you summed over the wrong dim: the gradient keeps one value per {keep}, "
            f"yours one per {kept}."
        )
    keep_text = " with keepdim=True" if keepdim else ""
    return (
        f"Hint: you summed over the wrong dim: the gradient keeps one value per {keep}, "
        f"yours one per {kept}; sum over dim {dim} ({kept}){keep_text}, not dim {wrong_dim} "
        f"({keep})."
    )


def hint_broadcast_back(
    expected_named: str, dims: list[int], names: list[str], checked: bool = False
) -> str:
    """Broadcasting back is proposed only when the answer broadcast back is the gradient."""
    where = " and ".join(f"dim {d} ({name})" for d, name in zip(dims, names, strict=True))
    back = " (broadcast it back with `.expand_as(...)` or `torch.ones_like(...) *`)"
    return (
        f"Hint: the gradient has the shape of its variable, {expected_named}, but yours has "
        f"size 1 in {where}: do not sum there; every element has its own gradient"
        f"{back if checked else ''}."
    )


def hint_matmul(left: str, right: str, inner_left: str, inner_right: str, fixed: str = "") -> str:
    """A transpose or a swap is proposed only as `fixed`, a rewrite that gave the gradient."""
    said = (
        f"Hint: `@` multiplies {left} by {right}: the inner sizes, {inner_left} and "
        f"{inner_right}, must match"
    )
    return f"{said}; `{fixed}` gives the gradient." if fixed else f"{said}."


def hint_broadcast_clash(a: str, b: str, dim: int, fixed: str = "") -> str:
    """`@` is proposed only as `fixed`, the line with `@` for `*` that gave the gradient."""
    said = f"Hint: two tensors of this line do not broadcast: {a} against {b} in dim {dim}"
    if fixed:
        return (
            f"{said}. They multiply as matrices in the forward pass: use `@`; `{fixed}` gives "
            "the gradient."
        )
    return f"{said}; check the dims each factor has, and which you summed or transposed."


def hint_bad_view(target: str, count: int) -> str:
    return (
        f"Hint: a view keeps the number of elements: {target} does not hold {count:,}; "
        "take the sizes from the tensors' `.shape` instead of typing them."
    )


def hint_values_right_shape_wrong(expected) -> str:
    return f"Hint: the values are right; only the shape is wrong (expected {as_shape(expected)})."


def hint_transpose() -> str:
    return "Hint: your answer is the transpose of the gradient; check the order of the matmul."


def hint_summed_everything(dims: tuple[int, ...], checked: bool = False) -> str:
    """The dim to sum over is proposed only when the code summed over it gave the gradient."""
    said = (
        "Hint: `.sum()` adds up every entry into one number; the forward pass broadcast only "
        f"over dim {', '.join(map(str, dims))}"
    )
    return f"{said}, so sum over that dim alone." if checked else f"{said}."


def hint_matmul_for_sum(dim: int | None = None, fixed: str = "") -> str:
    """The dim is proposed only with `fixed`, the rewrite `(a * b).sum(dim)` that gave it."""
    said = (
        "Hint: the diagonal of your answer is the gradient: `@` multiplied every column by "
        "every other one, but the forward pass multiplies element by element"
    )
    if not fixed:
        return f"{said}."
    return f"{said}: use `*`, then sum over dim {dim} with keepdim=True: `{fixed}`."


def hint_matmul_for_elementwise(left: str = "", right: str = "", fixed: str = "") -> str:
    """`*` is proposed only as `fixed`, the line with `*` for `@` that gave the gradient."""
    factors = f"{left} and {right}" if left else "the two factors"
    said = (
        f"Hint: `@` is a matrix product, but {factors} have shapes that multiply element by element"
    )
    if fixed:
        return f"{said}, as they do in the forward pass: `{fixed}` gives the gradient."
    return f"{said}: check which product the forward pass has."


def hint_index_add_shape(dim: int = 0, fixed: str = "") -> str:
    """The flattened call is written out only as `fixed`, checked to give the gradient."""
    along = (
        f"Hint: `index_add_({dim}, ...)` adds along dim {dim}, but the rows of the table are "
        "the characters: add along dim 0. "
        if dim
        else "Hint: "
    )
    said = f"{along}`index_add_` adds one row of the source per index"
    if fixed:
        return f"{said}: flatten the index and the source to one row per index, `{fixed}`."
    return f"{said}: its index must be one-dimensional, and the source one row per index."


def hint_pair_not_taken(function: str) -> str:
    return (
        f"Hint: `.{function}(dim)` returns a pair, (values, indices), not a tensor: take its "
        "`.indices` (or `.values`)."
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


def hint_autograd() -> str:
    return "Hint: derive the local derivative and multiply by the upstream gradient."


def hint_outside_language(nearest: tuple[str, ...] = ()) -> str:
    if not nearest:
        return ""
    return f"Hint: the nearest in the exercise language: {', '.join(f'`{n}`' for n in nearest)}."


def hint_nonfinite() -> str:
    return "Hint: look for a division by zero or a log of zero."


def hint_branch_sign(consumer: str) -> str:
    return f"Hint: the contribution that flows back through `{consumer}` has the opposite sign."


def hint_branch_factor(consumer: str, label: str) -> str:
    return (
        f"Hint: the contribution that flows back through `{consumer}` is off by a constant "
        f"factor of {label}."
    )


def hint_missing_consumer(target: str, missing: tuple[str, ...]) -> str:
    names = " and by ".join(f"`{m}`" for m in missing)
    return f"Hint: `{target}` is also used by {names}; add that contribution too."


def hint_sign() -> str:
    return "Hint: your answer has the right size but the opposite sign."


def hint_factor(label: str) -> str:
    return f"Hint: your answer is off by a constant factor of {label}."


def hint_all_zero(largest: float) -> str:
    return (
        f"Hint: your answer is all zeros; the true gradient is only almost zero on the main "
        f"batch (at most {largest:.1e}) and not for other upstream gradients: compute it from "
        "the upstream gradient."
    )


def hint_zero_by_coincidence(largest: float) -> str:
    return (
        f"Hint: the true gradient is almost zero here (at most {largest:.1e}), so zeros pass on "
        "one batch by coincidence; compute it from the upstream gradient instead."
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


def hint_masked(count: int) -> str:
    return (
        f"Hint: your answer is right except at {count:,} places where the gradient is exactly "
        "zero: the forward pass overwrote those values (a mask), so nothing flows back there."
    )
