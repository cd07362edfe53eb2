"""Naming the misconception behind a wrong tensor: shape, sign, factor, consumers, places."""

from __future__ import annotations

import pytest
import torch

from grader.feedback import detectors, diagnose
from grader.feedback import voice as feedback
from grader.grading import hints
from grader.grading.cases import LECTURE
from grader.grading.hints import Clues
from grader.misconceptions import LISTED_MISTAKE, Found

g = torch.Generator().manual_seed(0)
REF = torch.randn((32, 27), generator=g)
COL = torch.randn((32, 1), generator=g)
ROW = torch.randn((1, 64), generator=g)
VEC = torch.randn((27,), generator=g)


@pytest.mark.parametrize(
    ("case", "got", "expected", "hint"),
    [
        (
            "forgot to sum a broadcast column",
            REF,
            REF.sum(1, keepdim=True),
            feedback.hint_sum_dims((1,), True),
        ),
        ("forgot to sum into a bias", REF, REF.sum(0), feedback.hint_sum_dims((0,), False)),
        ("a sum would not make it right", REF, COL, feedback.hint_reshape((32, 1))),
        ("dropped the kept dim", COL.squeeze(1), COL, feedback.hint_keepdim()),
        ("row flattened", ROW.squeeze(0), ROW, feedback.hint_keepdim()),
        ("transposed", REF.T.contiguous(), REF, feedback.hint_transpose()),
        ("extra dim", ROW.view(1, 1, 64), ROW, feedback.hint_values_right_shape_wrong((1, 64))),
        ("dropped dim, wrong values", 2 * COL.squeeze(1), COL, feedback.hint_keepdim(False)),
        ("extra dim, wrong values", 2 * ROW.view(1, 1, 64), ROW, feedback.hint_reshape((1, 64))),
        ("unrelated shape", torch.zeros(5, 5), REF, ""),
    ],
)
def test_shape_hint(case, got, expected, hint):
    assert feedback.hint(detectors.shape_mismatch(got, expected)) == hint, case


def _hint(got, expected=REF, mistakes=(), partials=(), n=32):
    """Return the sentence the value hints give (those a row of the cmp table reads too)."""
    listed = tuple((Found(LISTED_MISTAKE, said=said), output) for said, output in mistakes)
    clues = Clues(expected, expected, "counts", n, {}, listed, tuple(partials))
    return feedback.hint(hints.find(LECTURE, got, clues, row=True))


@pytest.mark.parametrize(
    ("case", "got", "hint"),
    [
        ("sign", -REF, feedback.hint_sign()),
        ("times n", REF * 32, feedback.hint_factor("n")),
        ("over n", REF / 32, feedback.hint_factor("1/n")),
        ("bessel", REF * 32 / 31, feedback.hint_factor("n/(n-1)")),
        ("inverse bessel", REF * 31 / 32, feedback.hint_factor("(n-1)/n")),
        ("n-1", REF * 31, feedback.hint_factor("n-1")),
        ("twice", REF * 2, feedback.hint_factor("2")),
        ("half", REF / 2, feedback.hint_factor("1/2")),
        ("noise", REF + 0.5, ""),
    ],
)
def test_value_hint_names_sign_and_factors(case, got, hint):
    assert _hint(got) == hint, case


def test_value_hint_prefers_instructor_mistakes_then_consumers():
    wrong = REF * 0.3
    mistake = [("Hint: custom.", lambda: wrong)]
    partial = [(("counts_sum",), lambda: wrong)]
    assert _hint(wrong, mistakes=mistake, partials=partial) == "Hint: custom."
    expected = feedback.hint_missing_consumer("counts", ("counts_sum",))
    assert _hint(wrong, partials=partial) == expected


def test_value_hint_names_values_that_should_be_masked_out():
    masked = REF.clone()
    masked[:4] = 0.0
    assert _hint(REF, expected=masked) == feedback.hint_masked(4 * REF.shape[1])
    assert _hint(REF * 2, expected=masked) == ""  # wrong where it is not masked, too


def test_a_size_left_unnamed_is_named_by_the_shape_comment():
    sizes = {"n": 32, "n_embd": 6, "groups": 4}
    assert diagnose.named((12, 20), sizes) == "(12, 20)"
    assert diagnose.named((12, 20), sizes, "(2*n_embd, n_hidden)") == "(2*n_embd, n_hidden)"
    assert diagnose.named((32, 6), sizes, "(batch, width)") == "(n, n_embd)"  # named already
    hint = detectors.wrong_sum((32, 20), (12, 20), sizes, (), "(2*n_embd, n_hidden)")
    assert feedback.hint(hint) == feedback.hint_wrong_sum("2*n_embd", "n")


def test_value_hint_stays_quiet_on_tiny_gradients():
    tiny = torch.full((32, 1), 1e-9)
    assert _hint(torch.zeros(32, 1), expected=tiny) == ""


def test_compare_is_the_lecture_cmp():
    cmp = diagnose.compare("dx", REF.clone(), REF)
    assert (cmp.exact, cmp.approx, cmp.maxdiff) == (True, True, 0.0)
    nudged = REF.clone()
    nudged[3, 4] += 1e-3
    cmp = diagnose.compare("dx", nudged, REF)
    assert (cmp.exact, cmp.approx) == (False, False)
    assert cmp.maxdiff == pytest.approx(1e-3, rel=1e-2)
    assert diagnose.worst_index(nudged, REF) == (3, 4)


def test_wrong_places_and_heatmap():
    wrong = REF.clone()
    wrong[5, :] += 1
    wrong[:, 2] += 1
    rows, cols = diagnose.wrong_places(wrong, REF)
    assert rows == tuple(range(32))
    assert 2 in cols and len(cols) == 27
    heat = diagnose.heatmap(wrong, REF)
    assert len(heat.diff) == 32 and len(heat.diff[0]) == 27
    assert heat.diff[5][0] == pytest.approx(1.0)
    assert diagnose.heatmap(torch.zeros(2, 3, 4), torch.zeros(2, 3, 4)) is None


def test_missing_subsets():
    pairs = diagnose.missing_subsets(("a", "b"))
    assert pairs == [(("a",), ("b",)), (("b",), ("a",))]
    assert diagnose.missing_subsets(("a",)) == []


@pytest.mark.parametrize(
    ("got", "expected", "coincidence"),
    [
        (torch.zeros(3, 1), torch.full((3, 1), 3e-9), True),
        (torch.zeros(3, 1), torch.full((3, 1), 1e-3), False),
        (torch.full((3, 1), 1e-9), torch.full((3, 1), 3e-9), False),
        (torch.zeros(3), torch.full((3, 1), 3e-9), False),
        (None, torch.full((3, 1), 3e-9), False),
    ],
    ids=["zeros-on-noise", "zeros-on-a-real-gradient", "not-zeros", "wrong-shape", "undefined"],
)
def test_zero_by_coincidence(got, expected, coincidence):
    assert diagnose.zero_by_coincidence(got, expected) is coincidence


SIZES = {"n": 32, "n_embd": 10, "n_hidden": 64, "block_size": 3, "vocab_size": 27}


@pytest.mark.parametrize(
    ("case", "got", "expected", "upstream", "hint"),
    [
        (
            "summed over the batch instead of the row",
            torch.zeros(1, 27),
            torch.zeros(32, 1),
            ((32, 27),),
            feedback.hint_wrong_sum("n", "vocab_size", 1, 0, keepdim=True),
        ),
        (
            "a bias summed over the row",
            torch.zeros(32),
            torch.zeros(27),
            ((32, 27),),
            feedback.hint_wrong_sum("vocab_size", "n", 0, 1, keepdim=False),
        ),
        (
            "wrong dim with no upstream to tell the dim number",
            torch.zeros(32),
            torch.zeros(27),
            (),
            feedback.hint_wrong_sum("vocab_size", "n"),
        ),
        (
            "a batched weight summed over its own dim, not the batch's",
            torch.zeros(32, 27),
            torch.zeros(64, 27),
            ((32, 3, 27),),
            feedback.hint_wrong_sum("n_hidden", "n"),
        ),
        (
            "summed though every element has its own gradient",
            torch.zeros(1, 64),
            torch.zeros(32, 64),
            (),
            feedback.hint_broadcast_back("(n, n_hidden)", [0], ["n"]),
        ),
        (
            "not viewed back",
            torch.zeros(32, 30),
            torch.zeros(32, 3, 10),
            (),
            feedback.hint_reshape((32, 3, 10), "(n, block_size, n_embd)"),
        ),
    ],
)
def test_shape_hints_name_the_sizes(case, got, expected, upstream, hint):
    assert feedback.hint(detectors.shape_mismatch(got, expected, SIZES, upstream)) == hint, case


def test_named_shapes_and_labels():
    assert diagnose.named((32, 27), SIZES) == "(n, vocab_size)"
    assert diagnose.named((30, 64), SIZES) == "(n_embd*block_size, n_hidden)"
    assert diagnose.named((5,), SIZES) == "(5,)"
    assert diagnose.label(10, SIZES | {"other": 10}) == "10", "ambiguous sizes stay numbers"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "mat1 and mat2 shapes cannot be multiplied (32x27 and 64x27)",
            feedback.hint_matmul(
                "(n, vocab_size)", "(n_hidden, vocab_size)", "vocab_size", "n_hidden"
            ),
        ),
        (
            "The size of tensor a (27) must match the size of tensor b (64) at non-singleton "
            "dimension 1",
            feedback.hint_broadcast_clash("27 (vocab_size)", "64 (n_hidden)", 1),
        ),
        (
            "shape '[32, 3, 10]' is invalid for input of size 600",
            feedback.hint_bad_view("[32, 3, 10]", 600),
        ),
        ("something else entirely", ""),
    ],
)
def test_pytorch_shape_errors_are_translated(message, expected):
    assert feedback.hint(detectors.pytorch_error("RuntimeError", message, SIZES)) == expected
    assert detectors.pytorch_error("ValueError", message, SIZES) is None


@pytest.mark.parametrize(
    ("factor", "label"),
    [
        (32 / 27, "n/vocab_size"),
        (27 / 32, "vocab_size/n"),
        (3.0, "3"),
        (0.5, "1/2"),
        (1 / 64, "1/n_hidden"),
        (31.0, "n-1"),
        (32 / 31, "n/(n-1)"),
        (1.7, "1.7"),
        (1.0, ""),
    ],
)
def test_factors_of_any_size_are_named(factor, label):
    assert diagnose.factor_label(REF * factor, REF, 32, SIZES) == label


def test_a_wrong_sign_or_factor_on_one_branch_is_named():
    rest, branch = torch.randn(32, 27, generator=g), torch.randn(32, 27, generator=g)
    partials = [(("counts_sum",), lambda: rest)]
    expected = rest + branch
    assert _hint(rest - branch, expected, partials=partials) == feedback.hint_branch_sign(
        "counts_sum"
    )
    assert _hint(rest + 2 * branch, expected, partials=partials) == feedback.hint_branch_factor(
        "counts_sum", "2"
    )
