"""A listed mistake's misconception id (grader/course/mistakes.py): declared, derived from its
name, or from its code; its words; and the shipped course names every mistake."""

from __future__ import annotations

import pytest

from grader.course import SchemaError
from grader.course.mistakes import Mistake, read_mistakes, words
from grader.misconceptions import IDS, MISCONCEPTIONS

WHERE = "01_dprobs.toml"
CODE, MESSAGE = "dprobs = probs * dlogprobs", "Hint: divide by `probs`."


def _read(**keys) -> Mistake:
    return read_mistakes([{"code": CODE, "message": MESSAGE, **keys}], WHERE)[0]


def test_a_shared_id_is_kept_and_said_in_its_meaning():
    mistake = _read(misconception="local_only")
    assert mistake.misconception == "local_only"
    assert mistake.words == dict((m.id, m.means) for m in MISCONCEPTIONS)["local_only"]
    assert _read(misconception="local_only", name="stops at 1/probs").words == "stops at 1/probs"


def test_an_id_is_derived_from_the_name():
    mistake = _read(name="Multiplies by  probs where the log's derivative divides")
    assert mistake.misconception == "multiplies_by_probs_where_the_log_s_derivative_divides"
    assert mistake.words == "Multiplies by probs where the log's derivative divides"


def test_an_exercises_own_id_needs_a_name():
    assert _read(misconception="times_probs", name="times probs").misconception == "times_probs"
    with pytest.raises(SchemaError, match=r"\[\[mistakes\]\] 1: name: is required"):
        _read(misconception="times_probs")
    with pytest.raises(SchemaError, match="did you mean `local_only`"):
        _read(misconception="local_onyl")
    with pytest.raises(SchemaError, match="misconception: must be one of the shared ids"):
        _read(misconception="Times Probs", name="times probs")


def test_a_name_that_gives_a_shared_id_is_refused():
    with pytest.raises(SchemaError, match='write `misconception = "sign_flipped"` instead'):
        _read(name="Sign flipped")
    with pytest.raises(SchemaError, match="must be at most 60 characters"):
        _read(name="x" * 61)


def test_a_mistake_with_neither_gets_a_stable_id_of_its_code_and_its_message_as_words():
    first, again = _read(), _read()
    assert first.misconception == again.misconception
    assert first.misconception.startswith("listed_") and len(first.misconception) == 15
    other = read_mistakes([{"code": "dprobs = probs", "message": MESSAGE}], WHERE)[0]
    assert other.misconception != first.misconception
    assert first.words == "divide by `probs`."


def test_words_of_an_id_come_from_its_mistake_else_the_shared_meaning():
    listed = [_read(name="times probs")]
    assert words(listed, "times_probs") == "times probs"
    assert words(listed, "keepdim_lost") == "sums away a dimension that keepdim=True would keep"
    assert words(listed, "gone_since") == ""


def test_every_shipped_mistake_has_an_id_that_reads(catalog):
    for exercise in catalog.exercises:
        for mistake in exercise.mistakes:
            assert not mistake.misconception.startswith("listed_"), (exercise.id, mistake)
            assert mistake.misconception in IDS or mistake.name, (exercise.id, mistake)
        own = [m for m in exercise.mistakes if m.misconception not in IDS]
        assert len({m.misconception for m in own}) == len(own), exercise.id
    words_of = catalog.misconception_words
    said = words_of("dprobs", "multiplies_by_probs_where_the_log_s_derivative_divides")
    assert said == "multiplies by probs where the log's derivative divides"
