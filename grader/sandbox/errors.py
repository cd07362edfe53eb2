"""The one type for an exception raised by learner code, wherever it ran (torch-free)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LearnerError:
    """An exception raised by the learner's code, told in the learner's own lines."""

    type: str
    message: str
    line: int | None
    traceback: str
