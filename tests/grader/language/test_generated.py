"""What is generated from the declared language is current: operations.txt (by running the
vocabulary's examples) and docs/exercise-language.md."""

from __future__ import annotations

from pathlib import Path

from grader.cli.language import attribute_users
from grader.language import OPERATIONS, operations
from grader.language.derive import derive, render
from grader.language.docpage import render as page

ROOT = Path(__file__).resolve().parents[3]


def test_regenerating_the_operations_gives_the_committed_list():
    table = derive()
    assert render(table) == operations.PATH.read_text(encoding="utf-8"), (
        "run `python -m grader.language.derive` and commit operations.txt"
    )
    assert set().union(*table.values()) == OPERATIONS


def test_the_language_page_is_current(catalog):
    committed = (ROOT / "docs" / "exercise-language.md").read_text(encoding="utf-8")
    assert page(attribute_users(catalog)) == committed, (
        "run `python -m grader language --doc docs/exercise-language.md`"
    )


def test_the_page_says_which_exercises_use_a_name(catalog):
    users = attribute_users(catalog)
    assert "dC" in users["index_add_"] and "datt" in users["masked_fill"]
