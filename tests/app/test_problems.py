"""The page that lists unreadable exercise files."""

from __future__ import annotations

import shutil

import pytest
from app_helpers import page_test

from app import services
from grader.exercises import EXERCISES_DIR


def test_each_unreadable_file_is_listed_with_its_problem(fake, broken_exercises):
    at = page_test(page="problems").run()
    assert not at.exception
    assert len(at.error) == 1
    assert "99_broken.toml" in at.error[0].value and "unknown key" in at.error[0].value


def test_with_no_problems_it_says_so(fake):
    shown = page_test(page="problems").run().success[0].value
    assert shown.startswith("Every exercise file was read")


@pytest.fixture
def broken_scenario(tmp_path, monkeypatch):
    """Copy the exercises with a malformed scenario and a binary exercise file."""
    root = tmp_path / "exercises"
    shutil.copytree(EXERCISES_DIR, root)
    scenario = root / "02_layernorm" / "scenario.toml"
    scenario.write_text('colour = "red"\n' + scenario.read_text())
    (root / "01_mlp" / "98_binary.toml").write_bytes(b"\xff\xfe\x00\x89PNG\x00" * 20)
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(root))
    return root


def test_a_broken_scenario_and_a_binary_file_are_listed_and_the_rest_served(fake, broken_scenario):
    at = page_test(page="problems").run()
    listed = sorted(e.value for e in at.error)
    assert len(listed) == 2
    assert "98_binary.toml" in listed[0] and "is not valid TOML" in listed[0]
    assert "02_layernorm/scenario.toml: colour" in listed[1] and "unknown key" in listed[1]
    ids = [e.id for e in services.catalog().exercises]
    assert "dlogprobs" in ids and "dxhat" not in ids
    page = page_test("dlogprobs").run()
    assert not page.exception and page.title[0].value.startswith("dlogprobs")
