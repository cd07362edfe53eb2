"""Public names imported on first use, so that a light import (`--help`, the app's navigation)
loads no torch. (grader/sandbox/__init__.py keeps its own copy: the worker sees only the sandbox.)

    >>> __getattr__ = lazy_names("grader.training", {"Trainer": "grader.training.trainer"})
"""

from __future__ import annotations

import importlib
import sys


def lazy_names(package: str, homes: dict[str, str]):
    """Return a module `__getattr__` that imports each name from its home module once."""

    def __getattr__(name: str):
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
