"""Every face's public names resolve: each name in a package's `__all__` (grader/ and app/, its
rooms and their sub-rooms) is an attribute of the package, imported on first use or at once, or
one of its submodules."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _faces() -> list[str]:
    """Return every package of grader/ and app/ whose face declares `__all__`."""
    found = []
    for top in ("grader", "app"):
        for init in sorted((ROOT / top).rglob("__init__.py")):
            if "__all__" in init.read_text(encoding="utf-8"):
                found.append(".".join(init.parent.relative_to(ROOT).parts))
    return found


def test_the_faces_are_found():
    faces = _faces()
    assert {"grader", "grader.feedback", "grader.feedback.voice", "grader.sandbox"} <= set(faces)


@pytest.mark.parametrize("face", _faces())
def test_every_public_name_of_a_face_resolves(face):
    module = importlib.import_module(face)
    missing = [name for name in module.__all__ if not _resolves(module, name)]
    assert not missing, f"{face}.__all__ names what it does not have: {missing}"
    assert len(set(module.__all__)) == len(module.__all__), f"{face}.__all__ repeats a name"


def _resolves(module, name: str) -> bool:
    """An attribute, or a submodule (`from face import *` imports those `__all__` names)."""
    try:
        getattr(module, name)
    except AttributeError:
        return importlib.util.find_spec(f"{module.__name__}.{name}") is not None
    return True
