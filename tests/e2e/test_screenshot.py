"""In a real browser: the README's picture can be drawn (scripts/exercise_screenshot.py)."""

from __future__ import annotations

import importlib.util

import pytest

from .e2e_helpers import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _script():
    """Import scripts/exercise_screenshot.py (scripts/ is not a package)."""
    path = ROOT / "scripts" / "exercise_screenshot.py"
    spec = importlib.util.spec_from_file_location("exercise_screenshot", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_picture_shows_feedback_and_stays_small(server, page, tmp_path):
    script = _script()
    path = script.shoot(page, server.url, tmp_path / "exercise.png")
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) < 300_000, f"{len(data):,} bytes"
    assert page.get_by_text(script.FEEDBACK, exact=False).count() >= 1
