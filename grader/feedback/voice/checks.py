"""What each check says of one answer, passed or failed, and of a whole pass's rows: the
learner's variable first, in backticks; one present-tense sentence; evidence as "got …,
expected …". Never the reference tensor."""

from __future__ import annotations

from grader.feedback.voice.words import as_shape

__all__ = [
    "GRADER_FAULT",
    "ROUNDOFF_ULPS",
    "WRONG",
    "batch_solved",
    "cmp_printed",
    "exact",
    "form_ok",
    "inaccurate",
    "inconclusive",
    "looks_good",
    "not_defined",
    "not_finite",
    "not_tensor",
    "passes_sizes",
    "raised",
    "raised_at",
    "random_ok",
    "rules_ok",
    "runs_ok",
    "scratch_ran",
    "skipped",
    "syntax_error",
    "outside_language",
    "unreadable",
    "uses_autograd",
    "whole_pass_solved",
    "wrong_dtype",
    "wrong_shape",
    "wrong_with",
]


GRADER_FAULT = "The grader failed; this is not a problem with your code."


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
    wanted = (
        "a torch.Tensor" if expected is None else f"a float tensor of shape {as_shape(expected)}"
    )
    return f"`{name}` {problem}: expected {wanted}."


def wrong_dtype(name: str, got: str, expected: str) -> str:
    return f"`{name}` has the wrong dtype: got {got}, expected {expected}."


def wrong_shape(
    name: str, got, expected, got_named: str = "", expected_named: str = "", why: str = ""
) -> str:
    def shown(shape, named: str) -> str:
        return (
            f"{as_shape(shape)} = {named}"
            if named and named != as_shape(shape)
            else as_shape(shape)
        )

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
    return f"`{name}` is a float tensor of shape {as_shape(shape)} with finite values."


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


def whole_pass_solved(count: int) -> str:
    return f"All {count} gradients match autograd."


def scratch_ran(count: int) -> str:
    made = "nothing to show" if not count else f"{count} name{'s' if count != 1 else ''}"
    return f"Ran on the main batch (not graded): {made}."
