"""The whole-pass page: the template, the cmp table, the root cause, the recorded attempt."""

from __future__ import annotations

import json

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


def test_every_wrong_gradients_feedback_is_shown_in_full_beneath_the_table(fake):
    at = submit(page_test("01_mlp", page="whole_pass").run(), "dlogprobs = 0\n")
    [full] = [m.value for m in at.markdown if m.value.startswith("**Feedback in full**")]
    assert "- **dprobs:** `dprobs` is inaccurate: max abs diff 2.0e-01 at (0, 0)." in full
    assert "- **dcounts:** `dcounts` is not defined: assign your answer." in full
    assert "dlogprobs" not in full, "a gradient that passed is not repeated"
    assert json.loads(at.dataframe[0].proto.columns)["feedback"]["width"] == "large"


def test_a_right_pass_is_recorded_as_solved(fake):
    at = submit(page_test("01_mlp", page="whole_pass").run(), f"{SOLVED}\n")
    assert at.success[0].value == "All 26 gradients are right."
    profile = services.store().profiles()[0]
    assert services.store().statuses(profile) == {nav.whole_pass_id("01_mlp"): "solved"}


def test_starter_keeps_the_shape_comments():
    scenario = services.catalog().scenario("01_mlp")
    assert "dW1 = ...  # (n_embd*block_size, n_hidden)" in starter(scenario)


def test_the_pass_starts_from_the_learners_solved_answers(fake):
    from app.storage import Attempt

    store = services.store()
    page_test("01_mlp", page="whole_pass").run()  # creates the profile
    profile = store.profiles()[0]
    mine = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / n"
    store.record_attempt(profile, Attempt("dlogprobs", "dlogprobs = 0", False, "", 0, 1, "default"))
    store.record_attempt(profile, Attempt("dlogprobs", mine, True, "", 0, 1, "default"))
    store.record_attempt(profile, Attempt("dprobs", "dprobs = 1", False, "", 0, 1, "default"))
    store.record_attempt(
        profile, Attempt("dlogits_fused", "dlogits = 2", True, "", 0, 1, "default")
    )
    at = page_test("01_mlp", page="whole_pass").run()
    button = at.button(key=f"{nav.whole_pass_id('01_mlp')}:prefill")
    assert button.label == "Start from my 1 solved answers"
    at = button.click().run()
    lines = at.text_area[0].value.splitlines()
    assert lines[2:4] == mine.splitlines(), "the last solved attempt, not the failed one"
    assert lines[4] == "dprobs = ...  # (n, vocab_size)", "an unsolved gradient stays to write"
    assert "dlogits = ...  # (n, vocab_size)" in lines, "the fused exercise is not a step"
    assert store.draft(profile, nav.whole_pass_id("01_mlp")) == at.text_area[0].value
