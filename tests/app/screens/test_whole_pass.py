"""The whole-pass page: the template, the cmp table, the root cause, the recorded attempt."""

from __future__ import annotations

import json

from app import links, services
from app.screens.whole_pass import starter

from ..app_helpers import (
    ROOT_DIAGNOSIS,
    SOLVED,
    counting_navigations,
    page_test,
    submit,
    texts,
)


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
    [folded] = [e for e in at.expander if e.label.startswith("Feedback in full")]
    assert folded.label == "Feedback in full (2 of 3 gradients)"
    [full] = [m.value for m in folded.markdown]
    assert "- **dprobs:** `dprobs` is inaccurate: max abs diff 2.0e-01 at (0, 0)." in full
    assert "- **dcounts:** `dcounts` is not defined: assign your answer." in full
    assert "dlogprobs" not in full, "a gradient that passed is not repeated"
    assert json.loads(at.dataframe[0].proto.columns)["feedback"]["width"] == "large"


def test_a_right_pass_is_recorded_as_solved_with_each_step_it_proves(fake):
    from app.storage import EDITOR, PASS_STEP

    code = f"dlogprobs = torch.zeros_like(logprobs)\n{SOLVED}\n"
    at = submit(page_test("01_mlp", page="whole_pass").run(), code)
    assert at.success[0].value == "All 26 gradients are right."
    store = services.store()
    profile = store.learners.profiles()[0]
    whole = links.whole_pass_id("01_mlp")
    assert store.work.statuses(profile) == {whole: "solved", "dlogprobs": "solved"}
    recorded = {a.exercise_id: a for a in store.work.attempts(profile)}
    assert (recorded[whole].origin, recorded["dlogprobs"].origin) == (EDITOR, PASS_STEP)
    assert recorded["dlogprobs"].code.startswith("dlogprobs = torch.zeros_like(logprobs)")
    submit(at, f"{code}# again\n")  # a step solved already is not recorded again
    assert len(store.work.attempts(profile, "dlogprobs")) == 1


def test_a_wrong_pass_records_no_step(fake):
    submit(page_test("01_mlp", page="whole_pass").run(), "dlogprobs = 0\n")
    profile = services.store().learners.profiles()[0]
    assert set(services.store().work.statuses(profile)) == {links.whole_pass_id("01_mlp")}


def test_starter_keeps_the_shape_comments():
    scenario = services.catalog().scenario("01_mlp")
    assert "dW1 = ...  # (n_embd*block_size, n_hidden)" in starter(scenario)


def test_the_pass_starts_from_the_learners_solved_answers(fake):
    from app.storage import Attempt

    store = services.store()
    page_test("01_mlp", page="whole_pass").run()  # creates the profile
    profile = store.learners.profiles()[0]
    mine = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / n"
    store.work.record_attempt(
        profile, Attempt("dlogprobs", "dlogprobs = 0", False, "", 0, 1, "default")
    )
    store.work.record_attempt(profile, Attempt("dlogprobs", mine, True, "", 0, 1, "default"))
    store.work.record_attempt(profile, Attempt("dprobs", "dprobs = 1", False, "", 0, 1, "default"))
    store.work.record_attempt(
        profile, Attempt("dlogits_fused", "dlogits = 2", True, "", 0, 1, "default")
    )
    at = page_test("01_mlp", page="whole_pass").run()
    button = at.button(key=f"{links.whole_pass_id('01_mlp')}:prefill")
    assert button.label == "Start from my 1 solved answers"
    at = button.click().run()
    lines = at.text_area[0].value.splitlines()
    assert lines[2:4] == mine.splitlines(), "the last solved attempt, not the failed one"
    assert lines[4] == "dprobs = ...  # (n, vocab_size)", "an unsolved gradient stays to write"
    assert "dlogits = ...  # (n, vocab_size)" in lines, "the fused exercise is not a step"
    assert store.work.draft(profile, links.whole_pass_id("01_mlp")) == at.text_area[0].value


class FakeTrainer:
    """Stands in for grader.training.Trainer: Exercise 4's gradient check always passes."""

    def __init__(self):
        self.checked: list[str] = []

    def check(self, code, settings):
        from grader.result import Cmp, GradRow
        from grader.training.records import GradCheck

        self.checked.append(code)
        cmp = Cmp("(27, 10)", False, True, 0)
        row = GradRow("dC", "pass", "`dC` looks good.", cmp, shape=(27, 10))
        return GradCheck(True, (row,), None, "All seven gradients match autograd.")


def _upload(monkeypatch, notebook_bytes: bytes, name: str = "mine.ipynb"):
    """Render the page and upload a notebook (graded at once); return the AppTest, the trainer."""
    trainer = FakeTrainer()
    monkeypatch.setattr(services, "trainer", lambda source: trainer)
    at = page_test("01_mlp", page="whole_pass").run()
    key = links.whole_pass_id("01_mlp")
    at.file_uploader(key=f"{key}:notebook").set_value((name, notebook_bytes, "application/json"))
    return at.run(), trainer


def test_an_uploaded_notebook_is_graded_part_by_part(fake, monkeypatch):
    from nbformat import writes

    from ...grader.fixtures import lecture_notebook as lecture

    nb = lecture.build(
        exercise2=lecture.EXERCISE2 + "# fake: solved\n", exercise3=lecture.BLANKS["exercise3"]
    )
    at, trainer = _upload(monkeypatch, writes(nb).encode())
    assert not at.exception
    graded = [kind for kind, _ in fake.graded]
    assert graded == ["whole_pass", "dlogits_fused"], "the blank Exercise 3 is not graded"
    assert "cmp('C', dC, C)" in fake.graded[0][1] and "dlogits /= n" in fake.graded[1][1]
    assert trainer.checked[0].lstrip("\n").startswith("# -----------------\ndlogits = F.softmax")
    text = texts(at)
    for title, cell in [("Exercise 1 (the whole pass)", 9), ("Exercise 2 (`dlogits`)", 11)]:
        assert f"**{title}** · cell {cell}" in text
    badges = [m.value for m in at.markdown if "badge[" in m.value]
    assert [b.split("[")[1].split("]")[0] for b in badges][-4:] == [
        ":material/cancel: Not yet",
        ":material/check_circle: Solved",
        ":material/edit_note: Not written yet",
        ":material/check_circle: Solved",
    ]
    assert "Exercise 3 (`dhprebn`) is not written yet" in at.info[0].value
    assert at.error[0].value.startswith("Not solved yet: Exercise 1 (the whole pass), Exercise 3")
    assert "`dprobs` is the first wrong gradient" in at.error[1].value
    assert list(at.dataframe[-1].value["gradient"]) == ["dC"], "Exercise 4's check table"
    at.text_area[0].input("dlogprobs = 0\n").run()  # another widget's rerun
    assert len(fake.graded) == 2 and len(trainer.checked) == 1, "an upload is graded once"


def test_a_notebook_that_cannot_be_graded_gets_its_message_and_nothing_runs(fake, monkeypatch):
    at, trainer = _upload(monkeypatch, b'{"cells": []}', "broken.ipynb")
    assert at.error[0].value == "`broken.ipynb` is not a valid Jupyter notebook: it has no " + (
        "`nbformat` version."
    )
    assert fake.graded == [] and trainer.checked == []


def test_only_the_lectures_scenario_offers_a_notebook_upload(fake):
    at = page_test("03_attention", page="whole_pass").run()
    assert not at.exception and not at.file_uploader
    assert page_test("01_mlp", page="whole_pass").run().file_uploader


def test_the_root_cause_gets_its_exercises_diagnosis_and_opens_it_on_the_learners_line(fake):
    at = submit(page_test("01_mlp", page="whole_pass").run(), "dprobs = 1.0 / probs\n")
    assert ROOT_DIAGNOSIS in texts(at), "what the dprobs exercise says of that line"
    at.button(key="whole_pass:01_mlp:root").click().run()
    profile = services.store().learners.profiles()[0]
    assert services.store().work.draft(profile, "dprobs") == "dprobs = 1.0 / probs\n"


def test_a_solved_notebook_counts_on_the_statuses_as_attempts_from_a_notebook(fake, monkeypatch):
    from nbformat import writes

    from app.storage import NOTEBOOK

    from ...grader.fixtures import lecture_notebook as lecture

    solved = lecture.EXERCISE1 + f"{SOLVED}\n"
    nb = lecture.build(exercise1=solved, exercise2=lecture.EXERCISE2 + f"{SOLVED}\n")
    at, _ = _upload(monkeypatch, writes(nb).encode())
    assert not at.exception
    store = services.store()
    profile = store.learners.profiles()[0]
    recorded = {a.exercise_id: a for a in store.work.attempts(profile)}
    whole = links.whole_pass_id("01_mlp")
    assert set(recorded) == {whole, "dlogprobs", "dlogits_fused", "training"}
    assert all(a.solved and a.origin == NOTEBOOK for a in recorded.values())
    assert recorded["dlogprobs"].code.startswith("dlogprobs = torch.zeros_like(logprobs)")
    assert SOLVED in recorded[whole].code, "the notebook's own cell"
    statuses = store.work.statuses(profile)
    assert {statuses[k] for k in recorded} == {"solved"}, "the map, Progress and the sidebar"
    assert "dhprebn_fused" not in statuses, "Exercise 3 was not solved (the fake grades values)"


def test_a_pass_redraws_the_badge_and_the_navigation_with_no_rerun_of_the_page(fake, monkeypatch):
    import streamlit as st

    reruns, real = [], st.rerun
    monkeypatch.setattr(st, "rerun", lambda **kwargs: reruns.append(kwargs) or real(**kwargs))
    at = counting_navigations("whole_pass", "01_mlp").run()
    assert _badges(at) == [] and at.session_state["navigations"] == 0
    at = submit(at, "dlogprobs = 0\n")
    assert _badges(at) == ["Attempted, not solved yet"], "drawn after the grading, in its run"
    assert at.session_state["navigations"] == 1, "the navigation's icon follows the status"
    at = submit(at, "dlogprobs = 1\n")
    assert at.session_state["navigations"] == 1, "still attempted: the navigation is kept"
    at = submit(at, f"dlogprobs = torch.zeros_like(logprobs)\n{SOLVED}\n")
    assert _badges(at) == ["Solved"] and at.session_state["navigations"] == 2
    assert reruns == [], "the fragment that graded draws what the statuses change"


def _badges(at) -> list[str]:
    """Return the words of the page's status badges."""
    shown = [m.value.split("[", 1)[1].split("]")[0] for m in at.markdown if "badge[" in m.value]
    return [words.rsplit(": ", 1)[-1] for words in shown]
