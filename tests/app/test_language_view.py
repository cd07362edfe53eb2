"""A refusal by the exercise language, in the app: the sentence, the nearest names, and the list
it points to (with the real grader)."""

from __future__ import annotations

from .app_helpers import page_test, submit

KEY = "scratch:dcounts_sum_inv"


def _expanders(at) -> list[str]:
    return [e.label for e in at.expander]


def test_a_refused_answer_shows_the_construct_and_the_list(app_env):
    at = page_test("dcounts_sum_inv").run()
    submit(at, "import sympy\ndcounts_sum_inv = counts.sum(1, keepdim=True)\n")
    assert not at.exception
    assert any("`import sympy` on line 1 is not part of the exercise language" in e.value
               for e in at.error)  # fmt: skip
    assert any("The exercise language" in label for label in _expanders(at))
    assert any("`masked_fill`" in m.value for m in at.markdown), "the course's own addition"


def test_the_scratchpad_prints_and_refuses_in_the_same_language(app_env):
    at = page_test("dcounts_sum_inv").run().toggle(key=f"{KEY}:open").set_value(True).run()
    at.text_area(key=f"{KEY}:code").input("print(counts.sum(1)[:3])\n")
    at = at.button(key=f"{KEY}:code:submit").click().run()
    assert any("tensor([" in c.value for c in at.code), "a tensor printed"
    at.text_area(key=f"{KEY}:code").input("s = counts.summ(1)\n")
    at = at.button(key=f"{KEY}:code:submit").click().run()
    assert any("`.summ` on line 1" in e.value and "`sum`" in e.value for e in at.error)
    assert any("The exercise language" in label for label in _expanders(at))
