"""How the voice writes the things every sentence shows."""

from __future__ import annotations

__all__ = ["as_shape"]


def as_shape(shape) -> str:
    """Format a shape the way torch users write it: (32, 1), (64,), ()."""
    shape = tuple(shape)
    return f"({shape[0]},)" if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"
