"""One sentence per misconception id: every hint kind has an id, every id a sentence."""

from __future__ import annotations

import inspect

from grader.feedback import voice as feedback
from grader.misconceptions import IDS, LISTED_MISTAKE, Found


def test_every_hint_kind_is_the_sentence_of_an_id():
    kinds = {
        f
        for name, f in inspect.getmembers(feedback, inspect.isfunction)
        if name.startswith("hint_")
    }
    assert kinds <= set(feedback.SENTENCES.values()), "a hint_* function no id names"


def test_every_id_has_a_sentence_and_no_sentence_a_stray_id():
    assert set(feedback.SENTENCES) == set(IDS)


def test_a_found_misconception_is_said_by_its_function_or_in_the_instructors_words():
    assert feedback.hint(Found("sign_flipped")) == feedback.hint_sign()
    assert feedback.hint(Found("bessel", ("n/(n-1)",))) == feedback.hint_factor("n/(n-1)")
    assert feedback.hint(Found(LISTED_MISTAKE, said="Hint: mine.")) == "Hint: mine."
    assert feedback.hint(None) == ""
