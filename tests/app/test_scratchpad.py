"""The scratchpad on an exercise page, with the real grader: shapes shown, autograd refused,
the code kept across sessions."""

from __future__ import annotations

from .app_helpers import page_test

KEY = "scratch:dcounts_sum_inv"


def run_scratch(code: str):
    at = page_test("dcounts_sum_inv").run()
    at.text_area(key=f"{KEY}:code").input(code)
    return at.button(key=f"{KEY}:run").click().run()


def test_the_scratchpad_shows_shapes_and_what_was_printed(app_env):
    at = run_scratch("x = counts * dprobs\nprint(x.sum(1, keepdim=True).shape)\n")
    assert not at.exception
    table = next(d.value for d in at.dataframe if "values" in d.value.columns)
    assert list(table["name"]) == ["x"] and list(table["shape"]) == ["(32, 27)"]
    assert any("torch.Size([32, 1])" in c.value for c in at.code)
    assert "not graded" in at.info[0].value


def test_the_scratchpad_refuses_autograd(app_env):
    at = run_scratch("y = probs.log().sum()\ny.backward()\n")
    assert not at.exception
    assert any("autograd" in e.value for e in at.error)


def test_the_scratch_code_survives_a_new_session(app_env):
    run_scratch("z = counts[:2]\n")
    again = page_test("dcounts_sum_inv").run()
    assert again.text_area(key=f"{KEY}:code").value == "z = counts[:2]\n"
