"""The sentences of the detectors that look beyond the answer's own line: a factor of the
neighbouring step, a branch's local derivative in part, an embedding's gradient routed to the
wrong rows, a bracket that precedence left out, a one-hot without `num_classes`. Each sentence
is made from the fields its detector measured; a change is proposed only when it was checked."""

from __future__ import annotations

__all__ = [
    "ROUTES",
    "hint_embedding_routing",
    "hint_neighbour_step",
    "hint_one_hot_width",
    "hint_partial_derivative",
    "hint_precedence",
]


def hint_neighbour_step(answer: str, factor: str, line: str, step: str, following: bool) -> str:
    """A factor of a neighbouring line's local derivative: the next step's (one step too far)
    or the previous step's (the given gradient holds it already)."""
    said = (
        f"Hint: your `{answer}` is the true gradient times `{factor}`, from the local "
        f"derivative of `{line}`"
    )
    if following:
        return f"{said}: that factor belongs to the next step, `{step}`, not to `{answer}`."
    return (
        f"{said}: the previous step already applied it, and the given `{step}` holds it; leave "
        "it out."
    )


def hint_partial_derivative(
    upstream: str, left_out: str, line: str, derivative: str, alone: bool, times: bool = False
) -> str:
    """One branch's local derivative without one of its factors, or without its upstream
    gradient (`alone`; "multiply" is said only when that, `times`, was checked)."""
    if alone:
        said = f"Hint: the branch through `{line}` is its local derivative alone"
        if times:
            return f"{said}: multiply it by that branch's upstream gradient, `{upstream}`."
        return f"{said}, without that branch's upstream gradient, `{upstream}`."
    return (
        f"Hint: the local derivative of `{line}` is `{derivative}`; in the branch through it "
        f"(the one that `{upstream}` comes back by), your answer leaves out `{left_out}`."
    )


ROUTES = {
    "averaged": "a character read several times gets the average of its gradients, but its "
    "row adds them up: each place it was read adds its gradient; leave out the division by "
    "the count",
    "overwritten": "a character read more than once keeps only one of its gradients (an "
    "assignment overwrites the one before); its row must add them all up",
    "overwritten within a position": "`+=` through an index with repeats adds only one "
    "gradient for a character read more than once at the same position; its row must add "
    "every one of them",
    "context to one row": "your answer sends the gradient of a whole context (summed over its "
    "positions) to the row of its character at {at}; each position's gradient goes to the row "
    "of the character read there",
    "one position": "your answer keeps only {at} of each context; the characters at the other "
    "positions were read too, and their rows get their gradients as well",
}


def hint_embedding_routing(
    answer: str,
    index: str,
    upstream: str,
    how: str,
    position: int | None,
    positions: int,
    loop: bool,
    fixed: bool = False,
) -> str:
    """Say how an embedding's gradient was sent to the wrong rows of its table (each row of
    `answer` is a character of `index`); a loop's `=` is told `+=` only when that was checked."""
    last = " (the last)" if position is not None and position == positions - 1 else ""
    at = f"position {position}{last}" if position is not None else ""
    said = ROUTES[how].format(at=at)
    if how == "overwritten" and loop:
        said = (
            "your loop assigns each gradient with `=`, so a character read more than once "
            "keeps only the last of its gradients; its row must add them all up"
        )
        said += ": use `+=`" if fixed else ""
    return f"Hint: {said}."


def hint_precedence(before: str, after: str) -> str:
    return (
        f"Hint: Python groups `{before}` by precedence (`**`, then `*` and `/`, then `+` and "
        f"`-`), which is not the formula you meant; with brackets, `{after}` gives the gradient."
    )


def hint_one_hot_width(call: str, name: str, size: int, fixed: str) -> str:
    return (
        f"Hint: `{call}` has no `num_classes`, so it makes only as many columns as the largest "
        f"index in it plus one, not {size} (`{name}`): give `num_classes={name}`, as in `{fixed}`."
    )
