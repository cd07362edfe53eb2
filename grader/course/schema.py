"""Checks shared by every instructor file: known keys, required keys, types."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class BadInput(Exception):
    """Input that cannot be used (a file, flag, exercise or scenario); one `error:` line, exit 2."""


class SchemaError(ValueError):
    """An instructor file is malformed; `where` names the file and field."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem


def require(condition: bool, where: str, problem: str) -> None:
    """Raise SchemaError(where, problem) unless condition holds."""
    if not condition:
        raise SchemaError(where, problem)


def check_keys(raw: dict, spec: dict[str, type], required: tuple[str, ...], where: str) -> None:
    """Reject unknown keys, missing required keys and values of the wrong type."""
    require(isinstance(raw, dict), where, "must be a table")
    for key in raw:
        known = ", ".join(sorted(spec))
        unknown = f"unknown key (known keys: {known}){did_you_mean(key, spec)}"
        require(key in spec, f"{where}: {key}", unknown)
    for key in required:
        require(key in raw, f"{where}: {key}", "is required but missing")
    for key, value in raw.items():
        expected = spec[key]
        ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
        require(ok, f"{where}: {key}", f"must be {_article(expected)}, got {type(value).__name__}")


def _article(kind: type) -> str:
    """Name a TOML type for a message."""
    return {
        str: "a string",
        int: "an integer",
        float: "a number with a decimal point or exponent (1e-6)",
        bool: "true or false",
        list: "a list",
    }.get(kind, "a table")


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """Return "; did you mean `deadlines`?" for a name close to one known (case aside), else ""."""
    by_case = {k.lower(): k for k in known}
    close = by_case.get(name.lower()) or next(
        iter(difflib.get_close_matches(name.lower(), list(by_case), n=1, cutoff=0.75)), None
    )
    return f"; did you mean `{by_case.get(close, close)}`?" if close else ""
