"""The sentences that say what was measured where no slip was named: where the values differ
(the share of entries, the rows and columns, how many in a row, where they sit in their rows)
and, when almost every entry differs, what the detectors tried before calling the formula
wrong ("not an index" only where the slips of indexing were tried)."""

from __future__ import annotations

__all__ = ["hint_formula_wrong", "hint_where"]


def hint_where(
    rows: tuple[int, ...],
    cols: tuple[int, ...],
    share: float | None = None,
    per_row: int = 0,
    at: tuple[tuple[str, str], ...] = (),
) -> str:
    """Say where the values differ, as measured: the share of entries, the rows and columns,
    how many in a row at most, and where they sit in their rows (`at`: each row's target, or
    its largest entry of a tensor)."""
    where = f"in rows {_few(rows)} and columns {_few(cols)}"
    if share is None:
        return f"Hint: the differences are {where}."
    count = "one per row" if per_row == 1 else f"at most {per_row} per row"
    placed = f", at {' and at '.join(_place(kind, name) for kind, name in at)}" if at else ""
    return f"Hint: {_share(share)} of the entries differ, {count}{placed}, {where}."


def _share(share: float) -> str:
    """Write a share of entries as a percentage (below 1%: "fewer than 1%")."""
    return "fewer than 1%" if share < 0.01 else f"{share:.0%}"


def _place(kind: str, name: str) -> str:
    """Say where an entry sits in its row: the row's target, or its largest entry."""
    if kind == "targets":
        return f"each row's target (`{name}`)"
    return f"each row's largest entry of `{name}`"


def _few(items: tuple[int, ...], limit: int = 6) -> str:
    """List a few indices, saying how many more there are."""
    shown = ", ".join(map(str, items[:limit]))
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def hint_formula_wrong(share: float = 1.0, index_tried: bool = False) -> str:
    """Say that almost every entry differs (the share measured) and what that rules out: "not
    an index" only where the slips of indexing were tried and none fitted."""
    measured = f"Hint: almost every entry differs ({_share(share)} of them)"
    if index_tried:
        return (
            f"{measured}, and no slip of indexing tried fits, so the formula is wrong, not an "
            "index: check each local derivative."
        )
    return (
        f"{measured}, and no sign, factor, missing branch or local derivative tried fits: check "
        "each local derivative of your formula."
    )
