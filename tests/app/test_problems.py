"""The page that lists unreadable exercise files."""

from __future__ import annotations

from app_helpers import page_test


def test_each_unreadable_file_is_listed_with_its_problem(fake, broken_exercises):
    at = page_test(page="problems").run()
    assert not at.exception
    assert len(at.error) == 1
    assert "99_broken.toml" in at.error[0].value and "unknown key" in at.error[0].value


def test_with_no_problems_it_says_so(fake):
    assert page_test(page="problems").run().success[0].value == "Every exercise file was read."
