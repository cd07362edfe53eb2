"""Grading the lecture's whole Exercise 1 cell: the cmp table and the root cause."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader import Grader
from grader.feedback import voice as feedback

# the lecture's hard-coded-size hint quotes the lecture's own sizes, its batch of 32 first
LECTURE_HARD_CODED = (
    "a size is hard-coded; use n, shapes of tensors or keepdim instead of numbers like 32, "
)

LECTURE_PASS = (Path(__file__).parents[1] / "fixtures" / "lecture_pass.py").read_text()


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog)


def test_the_lecture_cell_passes_all_26(grader):
    result = grader.grade_pass(LECTURE_PASS)
    assert result.solved, result.message
    assert len(result.rows) == 26 and all(r.status == "pass" for r in result.rows)
    assert result.rows[0].name == "dlogprobs" and result.rows[-1].name == "dC"
    assert result.message == feedback.whole_pass_solved(26)
    assert 0 < result.elapsed < 60
    assert (result.ran, result.failed_check, result.status) == (True, "", "solved")


def test_the_solutions_chained_in_backward_order_pass(grader, catalog, mlp):
    code = "\n".join(catalog.get(f"d{t}").solution() for t in mlp.whole_pass)
    assert grader.grade_pass(code).solved


def test_the_first_wrong_gradient_is_the_root_cause(grader):
    broken = LECTURE_PASS.replace(
        "dcounts = counts_sum_inv * dprobs", "dcounts = counts_sum_inv * dprobs * 2"
    )
    result = grader.grade_pass(broken)
    assert not result.solved and result.root_cause == "dcounts"
    assert result.message == feedback.whole_pass_root("dcounts")
    statuses = {r.name: r.status for r in result.rows}
    assert statuses["dprobs"] == "pass" and statuses["dnorm_logits"] == "fail"
    facts = (result.ran, result.failed_check, result.status)
    assert facts == (True, "lecture", "not_solved"), "the root cause's check, as fields"


def test_the_root_cause_gets_the_diagnosis_of_its_step_exercise(grader):
    wrong = "dcounts = counts_sum_inv * dprobs * 2"
    result = grader.grade_pass(LECTURE_PASS.replace("dcounts = counts_sum_inv * dprobs", wrong))
    assert result.root_cause == "dcounts" and result.root_exercise == "dcounts"
    lines = result.line_of("dcounts")
    assert lines.splitlines()[0] == wrong and "dcounts += " in lines, "both of its lines"
    alone = grader.grade("dcounts", lines)
    assert alone.misconception, "the step exercise names this mistake"
    assert result.misconception == alone.misconception
    assert result.diagnosis == alone.summary_with_hint()
    assert result.line_of("dprobs") == "dprobs = 1.0 / probs * dlogprobs", "every gradient's lines"


def test_a_root_cause_whose_lines_read_a_helper_gets_its_diagnosis_with_it(grader):
    code = LECTURE_PASS.replace(
        "dcounts = counts_sum_inv * dprobs", "twice = 2 * dprobs\ndcounts = counts_sum_inv * twice"
    )
    result = grader.grade_pass(code)
    assert result.root_cause == "dcounts" and result.root_exercise == "dcounts"
    assert "not defined" not in result.diagnosis, "the helper's line goes with the root's"
    assert result.misconception == "branch_factor" and "`probs`" in result.diagnosis


def test_a_root_cause_whose_lines_need_another_gradient_gets_its_link_only(grader):
    code = LECTURE_PASS.replace(
        "dcounts = counts_sum_inv * dprobs", "dcounts = counts_sum_inv * dprobs * dlogprobs"
    )
    result = grader.grade_pass(code)
    assert result.root_cause == "dcounts" and result.root_exercise == "dcounts"
    assert result.diagnosis == "", "no 'not defined' blamed on a line that runs in the pass"


def test_the_lectures_dropped_keepdim_is_named(grader):
    lecture = LECTURE_PASS.replace("(-dbndiff).sum(0, keepdim=True)", "(-dbndiff).sum(0)")
    result = grader.grade_pass(lecture)
    assert result.root_cause is None, "right values in a broadcastable shape are not a root"
    row = next(r for r in result.rows if r.name == "dbnmeani")
    assert "keepdim=True. Got (64,), expected (1, 64)." in row.message, "the why, then the shapes"
    assert (result.failed_check, result.misconception) == ("form", "keepdim_lost")


def test_hard_coded_sizes_fail_the_other_configuration(grader):
    code = LECTURE_PASS.replace("-1.0 / n", "-1.0 / 32")
    result = grader.grade_pass(code)
    assert not result.solved and result.root_cause is None
    assert "dlogprobs" in result.sizes_message
    assert LECTURE_HARD_CODED in result.sizes_message
    assert (result.failed_check, result.misconception) == ("sizes", "hard_coded_size")


def test_zeros_right_by_coincidence_are_not_blamed_on_sizes(grader):
    line = "dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)"
    code = LECTURE_PASS.replace(line, "dlogit_maxes = torch.zeros_like(logit_maxes)")
    assert code != LECTURE_PASS
    result = grader.grade_pass(code)
    assert not result.solved and result.root_cause is None
    assert result.sizes_message.startswith("`dlogit_maxes` is wrong with n=")
    assert "zeros pass on one batch by coincidence" in result.sizes_message
    assert LECTURE_HARD_CODED not in result.sizes_message
    assert result.misconception == "zero_by_coincidence"


def test_an_exception_stops_the_pass_with_its_line(grader):
    result = grader.grade_pass("dlogprobs = torch.zeros_like(logprobs)\nboom()\n")
    assert not result.solved and result.error.line == 2 and result.error.type == "NameError"
    assert (result.ran, result.failed_check) == (False, "runs")


def test_header_shows_the_lecture_figures(names_dataset, catalog):
    info = Grader(names_dataset, catalog).header()
    assert (info["train"], info["dev"], info["test"]) == (182625, 22655, 22866)
    assert info["vocab_size"] == 27 and info["parameters"] == 4137


CMP_CALLS = """
cmp('logprobs', dlogprobs, logprobs)
cmp('counts', dcounts, counts)
cmp('bnmeani', dbnmeani, bnmeani)
"""


def test_cmp_exists_and_prints_the_lectures_line_for_each_call(grader):
    result = grader.grade_pass(LECTURE_PASS + CMP_CALLS)
    assert result.solved, result.message
    lines = result.stdout.splitlines()
    assert lines[:2] == [
        f"{name:15s} | exact: True  | approximate: True  | maxdiff: 0.0"
        for name in ("logprobs", "counts")
    ], result.stdout
    assert re.fullmatch(
        r"bnmeani {9}\| exact: (True |False) \| approximate: True  \| maxdiff: \S+", lines[2]
    ), result.stdout


def test_the_lectures_own_bnmeani_line_is_named_and_not_blamed(grader):
    lecture = LECTURE_PASS.replace(
        "dbnmeani = (-dbndiff).sum(0, keepdim=True)", "dbnmeani = (-dbndiff).sum(0)"
    )
    result = grader.grade_pass(lecture + CMP_CALLS)
    assert not result.solved and result.root_cause is None
    assert result.shape_slips == ("dbnmeani",)
    first = (
        "All 26 gradients have autograd's values, as the lecture's `cmp` says; one shape to fix:"
    )
    assert result.message.startswith(f"{first} `dbnmeani` has the right values"), "values first"
    assert "This is the lecture's own line" in result.message
    assert "`==` broadcasts (64,) against (1, 64)" in result.message
    statuses = {r.name: r.status for r in result.rows}
    assert statuses["dbnmeani"] == "fail" and statuses["dhprebn"] == "pass"
    assert "bnmeani         | `dbnmeani` has the wrong shape" in result.stdout


def test_a_shape_slip_of_ones_own_is_not_called_the_lectures(grader):
    mine = LECTURE_PASS.replace(
        "dbnmeani = (-dbndiff).sum(0, keepdim=True)", "dbnmeani = -dbndiff.sum(0)"
    )
    result = grader.grade_pass(mine)
    assert not result.solved and "lecture's own line" not in result.message
    assert result.shape_slips == ("dbnmeani",)
    assert "`dbnmeani` has the right values in shape (64,)" in result.message


@pytest.mark.parametrize(
    ("alias", "changed"),
    [
        ("dhprebn = dbndiff", "dhprebn += 1.0 / n * (torch.ones_like(hprebn) * dbnmeani)"),
        ("dhprebn = dbndiff", "dhprebn.add_(1.0 / n * (torch.ones_like(hprebn) * dbnmeani))"),
    ],
)
def test_an_alias_changed_in_place_is_named_not_the_correct_line(grader, alias, changed):
    code = LECTURE_PASS.replace("dhprebn = dbndiff.clone()", alias).replace(
        "dhprebn += 1.0 / n * (torch.ones_like(hprebn) * dbnmeani)", changed
    )
    lines = code.splitlines()
    result = grader.grade_pass(code)
    assert not result.solved
    expected = feedback.whole_pass_alias(
        "dhprebn", "dbndiff", lines.index(alias) + 1, lines.index(changed) + 1
    )
    assert result.message == expected


def test_an_alias_rebound_before_any_change_is_harmless(grader):
    code = LECTURE_PASS.replace(
        "dhprebn = dbndiff.clone()", "dhprebn = dbndiff\ndhprebn = dbndiff + 0"
    )
    assert grader.grade_pass(code).solved


@pytest.mark.parametrize(
    "dlogits_line",
    ["", "dlogits = dlogits * 1.0", "dlogits += 0 * dlogit_maxes"],
    ids=["dropped", "dropped-copy", "zeroed"],
)
def test_a_branch_hidden_by_a_zero_gradient_fails_the_pass(grader, dlogits_line):
    code = LECTURE_PASS.replace(
        "dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes",
        dlogits_line,
    )
    result = grader.grade_pass(code)
    assert all(r.status == "pass" for r in result.rows), "the values alone cannot tell"
    assert not result.solved and result.root_cause == "dlogits"
    assert "only because one of its upstream gradients is almost zero" in result.message
    assert result.failed_check == "random" and result.ran
