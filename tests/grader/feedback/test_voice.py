"""One sentence per misconception id: every hint kind has an id, every id a sentence."""

from __future__ import annotations

import inspect

import pytest

from grader.feedback import detectors
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


def test_a_diagnosis_is_the_hint_said_first_and_a_where_list_is_none():
    assert (
        feedback.diagnosis(Found("sign_flipped")) == "your answer has the right size but the "
        "opposite sign."
    )
    assert feedback.diagnosis(Found(LISTED_MISTAKE, said="Hint: mine.")) == "mine."
    assert feedback.diagnosis(Found("wrong_values", ((1,), (2,)))) == ""
    assert feedback.diagnosis(None) == ""


def test_the_diagnosis_comes_first_and_the_numbers_after_it():
    why = feedback.diagnosis(Found("sign_flipped"))
    said = feedback.inaccurate("dx", 6.7e-5, (0, 1), (1e-8, 1e-5), 0.01, why)
    assert said.startswith(f"`dx` has wrong values: {why} Max abs diff 6.7e-05 at (0, 1);")
    tiny = feedback.inaccurate("dx", 1e-9, (0, 1), (1e-8, 1e-5), 0.01, why)
    assert tiny.startswith("`dx` has wrong values: "), "a named mistake is never round-off"
    shape = feedback.wrong_shape("dx", (3,), (2, 3), why="why.")
    assert shape == "`dx` has the wrong shape: why. Got (3,), expected (2, 3)."
    assert feedback.raised("IndexError", 2, "why.") == "Your code raised IndexError on line 2: why."
    assert feedback.raised("IndexError", 2) == "Your code raised IndexError on line 2:"


VOICE = (feedback.checks, feedback.hints, feedback.diagnoses, feedback.sentences)
VOICE += (feedback.training, feedback.notebook)
DETECTORS = (detectors.shapes, detectors.errors, detectors.derivatives, detectors.indexing)
DETECTORS += (detectors.formulas,)


@pytest.mark.parametrize("member", VOICE + DETECTORS, ids=lambda member: member.__name__)
def test_every_function_of_the_voice_and_the_detectors_is_on_their_face(member):
    room = feedback if member in VOICE else detectors
    defined = {
        name
        for name, f in inspect.getmembers(member, inspect.isfunction)
        if f.__module__ == member.__name__ and not name.startswith("_")
    }
    assert defined <= set(member.__all__), f"{member.__name__}: not in its __all__"
    assert set(member.__all__) <= set(room.__all__), f"{member.__name__}: not on the face"
