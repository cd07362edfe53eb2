"""The whole-pass page: the template, the cmp table, the root cause, the recorded attempt."""

from __future__ import annotations

from app_helpers import SOLVED, page_test, submit

from app import nav, services
from app.screens.whole_pass import starter


def test_the_template_lists_every_gradient_in_backward_order(fake):
    at = page_test("01_mlp", page="whole_pass").run()
    assert not at.exception
    lines = at.text_area[0].value.splitlines()
    assert lines[2] == "dlogprobs = ...  # (n, vocab_size)"
    assert lines[-1] == "dC = ...  # (vocab_size, n_embd)"
    assert len([line for line in lines if line.startswith("d")]) == 26


def test_a_wrong_pass_shows_the_table_with_the_root_cause_highlighted(fake):
    at = submit(page_test("01_mlp", page="whole_pass").run(), "dlogprobs = 0\n")
    assert "`dprobs` is the first wrong gradient" in at.error[0].value
    table = at.dataframe[0].value
    assert list(table["gradient"]) == ["dlogprobs", "dprobs", "dcounts"]
    assert list(table[""]) == ["✓", "✗", "✗"]
    styles = at.dataframe[0].proto.arrow_data.styler.styles
    highlighted = styles.split("{")[0]
    assert "_row1_col0" in highlighted and "_row2_" not in highlighted, "only the root, dprobs"
    assert "background-color" in styles


def test_a_right_pass_is_recorded_as_solved(fake):
    at = submit(page_test("01_mlp", page="whole_pass").run(), f"{SOLVED}\n")
    assert at.success[0].value == "All 26 gradients are right."
    profile = services.store().profiles()[0]
    assert services.store().statuses(profile) == {nav.whole_pass_id("01_mlp"): "solved"}


def test_starter_keeps_the_shape_comments():
    scenario = services.catalog().scenario("01_mlp")
    assert "dW1 = ...  # (n_embd*block_size, n_hidden)" in starter(scenario)
