"""Every learner-facing message, one function per kind, in one voice (see STYLE.md).

The learner's variable comes first, in backticks; one present-tense sentence; evidence as
"got …, expected …"; an optional second sentence starting "Hint:". Never the reference tensor.
"""

from __future__ import annotations

GRADER_FAULT = "The grader failed; this is not a problem with your code."


def _shape(shape) -> str:
    """Format a shape the way torch users write it: (32, 1), (64,), ()."""
    shape = tuple(shape)
    return f"({shape[0]},)" if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"


def looks_good(name: str, maxdiff: float) -> str:
    return f"`{name}` looks good (max diff {maxdiff:.1e})."


def exact(name: str) -> str:
    return f"`{name}` matches autograd exactly."


def passes_sizes(name: str, sizes: dict) -> str:
    shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
    return f"`{name}` is also right with {shown}."


def random_ok(name: str) -> str:
    return f"`{name}` is right for random upstream gradients too."


def not_defined(name: str) -> str:
    return f"`{name}` is not defined: assign your answer to `{name}`."


def not_tensor(name: str, problem: str, expected=None) -> str:
    wanted = "a torch.Tensor" if expected is None else f"a float tensor of shape {_shape(expected)}"
    return f"`{name}` {problem}: expected {wanted}."


def wrong_dtype(name: str, got: str, expected: str) -> str:
    return f"`{name}` has the wrong dtype: got {got}, expected {expected}."


def wrong_shape(name: str, got, expected) -> str:
    return f"`{name}` has the wrong shape: got {_shape(got)}, expected {_shape(expected)}."


def not_finite(name: str, count: int, index: tuple) -> str:
    return f"`{name}` has {count} non-finite values (nan or inf), the first at {index}."


def inaccurate(name: str, maxdiff: float, index: tuple, tol: float) -> str:
    return f"`{name}` is inaccurate: max abs diff {maxdiff:.1e} at {index}; tolerance {tol:.0e}."


def form_ok(name: str, shape) -> str:
    return f"`{name}` is a float tensor of shape {_shape(shape)} with finite values."


def runs_ok() -> str:
    return "Your code ran without errors."


def rules_ok() -> str:
    return "Your code computes the gradient by hand."


def uses_autograd(what: str, line: int | None) -> str:
    where = f" on line {line}" if line else ""
    return f"Your code uses autograd (`{what}`){where}; write the gradient by hand."


def raised(kind: str, line: int | None) -> str:
    where = f" on line {line}" if line else ""
    return f"Your code raised {kind}{where}:"


def raised_at(kind: str, line: int | None, sizes: dict) -> str:
    where = f" on line {line}" if line else ""
    shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
    return f"Your code raised {kind}{where} with {shown}."


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


def hint_reshape(expected) -> str:
    return f"Hint: the answer must have the shape of the tensor itself, {_shape(expected)}."


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


def hint_random_only() -> str:
    return (
        "Hint: your answer is right on the lecture batch but not for other upstream gradients; "
        "multiply by the upstream gradient instead of relying on its values."
    )


def hint_hard_coded() -> str:
    return (
        "Hint: your answer is right for the lecture's sizes but not for others; "
        "use n, shapes of tensors or keepdim instead of numbers like 32, 64, 27, 3 or 10."
    )


def hint_autograd() -> str:
    return "Hint: derive the local derivative and multiply by the upstream gradient."


def hint_nonfinite() -> str:
    return "Hint: look for a division by zero or a log of zero."


def _few(items: tuple[int, ...], limit: int = 6) -> str:
    """List a few indices, saying how many more there are."""
    shown = ", ".join(map(str, items[:limit]))
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def whole_pass_root(name: str) -> str:
    return f"`{name}` is the first wrong gradient in backward order; fix it first."


def whole_pass_solved(count: int) -> str:
    return f"All {count} gradients match autograd."


def downstream_of(name: str) -> str:
    return f"Not graded: it comes after `{name}`, which is wrong."
