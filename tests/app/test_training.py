"""The training page is a placeholder until issue 4."""

from __future__ import annotations

from app_helpers import page_test


def test_the_placeholder_says_what_is_coming(fake):
    at = page_test(page="training").run()
    assert not at.exception
    assert at.title[0].value == "Exercise 4: train the MLP"
    assert "issue 4" in at.info[0].value
