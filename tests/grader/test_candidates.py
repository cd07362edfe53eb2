"""The detectors of wrong answers built in the parent: local derivatives, indexing with the
targets, a fused formula's terms, products of sums; each as a table of (case, answer, sentence)."""

from __future__ import annotations

import pytest
import torch

from grader.feedback import candidates, diagnose
from grader.feedback.candidates import Term
from grader.feedback import voice as feedback
from grader.grading import hints
from grader.grading.cases import LECTURE
from grader.grading.hints import Clues

g = torch.Generator().manual_seed(1)
X = torch.randn((8, 5), generator=g)  # an input
H = torch.tanh(X)  # its tanh
U = torch.randn((8, 5), generator=g)  # the upstream gradient
GAIN = torch.randn((1, 5), generator=g)
Y = torch.tensor([0, 3, 1, 3, 3, 2, 0, 1])  # a target per row
P = torch.softmax(torch.randn((8, 5), generator=g), 1)
ONEHOT = torch.nn.functional.one_hot(Y, 5).float()
VALUES = {"x": X, "h": H, "bngain": GAIN, "Yb": Y, "probs": P}
LINE = {"h": "h = torch.tanh(x)"}


def _hint(got, expected, upstream=None, lines=None, terms=()):
    """Return the sentence the value hints give for `got` against `expected`."""
    upstream = {"h": U} if upstream is None else upstream
    clues = Clues(
        expected, expected, "x", 8, {"n": 8}, values=VALUES, upstream=upstream,
        lines=lines or LINE, terms=lambda: terms,
    )  # fmt: skip
    return feedback.hint(hints.find(LECTURE, got, clues))


TANH = (1 - H**2) * U


@pytest.mark.parametrize(
    ("case", "got", "hint"),
    [
        (
            "sigmoid's derivative for tanh's",
            H * (1 - H) * U,
            feedback.hint_wrong_local_derivative("dh", "`h` * (1 - `h`)", LINE["h"], "1 - `h`**2"),
        ),
        (
            "the output for the input",
            X * U,
            feedback.hint_wrong_local_derivative("dh", "`x`", LINE["h"], "1 - `h`**2"),
        ),
        (
            "no local derivative",
            U.clone(),
            feedback.hint_no_local_derivative("dh", LINE["h"], "1 - `h`**2"),
        ),
    ],
)
def test_a_wrong_local_derivative_is_named_with_the_right_one(case, got, hint):
    assert _hint(got, TANH) == hint, case


def test_the_wrong_factor_of_a_product_is_summed_like_the_gradient():
    expected = (X * U).sum(0, keepdim=True)  # dbngain for h = bngain * x
    got = (GAIN * U).sum(0, keepdim=True)
    lines = {"h": "h = bngain * x"}
    hint = feedback.hint_wrong_local_derivative("dh", "`bngain`", lines["h"], "`x`")
    assert _hint(got, expected, lines=lines) == hint


DLOGITS = (P - ONEHOT) / 8


@pytest.mark.parametrize(
    ("case", "where", "got"),
    [
        ("[:, Yb]", "columns", None),
        ("[Yb]", "rows", None),
        ("every column", "everywhere", (P - 1) / 8),
        ("the target column alone", "alone", -ONEHOT / 8),
    ],
)
def test_a_slip_of_indexing_with_the_targets_is_named(case, where, got):
    if got is None:
        got = P.clone()
        if where == "columns":
            got[:, Y] -= 1
        else:
            got[Y] -= 1
        got = got / 8
    hint = feedback.hint_index_targets(where, "Yb")
    assert _hint(got, DLOGITS, upstream={"loss": torch.tensor(1.0)}) == hint, case


def test_log_softmax_for_softmax_is_named_by_its_tensor():
    values = VALUES | {"logprobs": P.log()}
    got = (P.log() - ONEHOT) / 8
    assert candidates.swapped_tensor(got, DLOGITS, values) == ("logprobs", "probs")
    assert candidates.swapped_tensor(DLOGITS.clone(), DLOGITS, values) is None


def test_a_right_answer_is_no_slip_of_indexing():
    assert candidates.index_slip(DLOGITS.clone(), DLOGITS, VALUES) is None


DIRECT, MEAN, VAR = (torch.randn((8, 5), generator=g) for _ in range(3))
TERMS = (("", DIRECT), ("bnmeani", MEAN), ("bnvar", VAR))


@pytest.mark.parametrize(
    ("case", "got", "hint"),
    [
        (
            "the variance's term negated",
            DIRECT + MEAN - VAR,
            feedback.hint_fused_term((Term("bnvar", "-1"),)),
        ),
        (
            "Bessel inverted on the variance's term",
            DIRECT + MEAN + VAR * (7 / 8) ** 2,
            feedback.hint_fused_term((Term("bnvar", "((n-1)/n)**2", bessel=True),)),
        ),
        (
            "the mean's term dropped",
            DIRECT + VAR,
            feedback.hint_fused_term((Term("bnmeani", "0"),)),
        ),
        ("mean and variance constants", DIRECT, feedback.hint_stats_constant(("bnmeani", "bnvar"))),
    ],
)
def test_a_fused_formulas_term_is_named(case, got, hint):
    assert _hint(got, DIRECT + MEAN + VAR, upstream={}, terms=TERMS) == hint, case


def test_a_product_of_batch_sums_is_named():
    expected = X.T @ U  # dW for h = x @ W
    got = X.sum(0)[:, None] * U.sum(0)[None, :] / 8
    assert _hint(got, expected, upstream={"h": U}) == feedback.hint_sums_multiplied("x", "dh")


def test_the_power_rule_names_its_exponent():
    line = {"h": "h = (x + 1e-5) ** -0.5"}
    expected = -0.5 * X.abs() * U
    assert _hint(-2 * expected, expected, lines=line) == feedback.hint_power_rule(-0.5)


def test_wrong_values_everywhere_are_a_formula_not_a_where_list():
    got = torch.randn((8, 5), generator=g)
    assert _hint(got, DLOGITS, upstream={}) == feedback.hint_formula_wrong()


def test_a_few_wrong_entries_are_listed_by_place():
    got = DLOGITS.clone()
    got[2, 3] += 1.0
    assert _hint(got, DLOGITS, upstream={}) == feedback.hint_where((2,), (3,))


@pytest.mark.parametrize(
    ("case", "kind", "message", "hint"),
    [
        (
            "@ for *",
            "RuntimeError",
            "mat1 and mat2 shapes cannot be multiplied (1x64 and 32x64)",
            feedback.hint_matmul_for_elementwise("(1, 64)", "(32, 64)"),
        ),
        (
            "index_add_ with a 2-D index",
            "IndexError",
            "index_add_(): Index is supposed to be a vector, but got dim: 2",
            feedback.hint_index_add_shape(),
        ),
        (
            "index_add_ with an unflattened source",
            "RuntimeError",
            "index_add_(): Number of indices (96) should be equal to source.size(dim): (32)",
            feedback.hint_index_add_shape(),
        ),
        (
            "one_hot of max(0)",
            "RuntimeError",
            "Class values must be smaller than num_classes.",
            feedback.hint_max_wrong_dim(),
        ),
    ],
)
def test_pytorchs_errors_for_api_slips_get_a_sentence(case, kind, message, hint):
    assert feedback.hint(diagnose.error_hint(kind, message, {})) == hint, case


def test_a_sum_of_everything_is_named():
    found = diagnose.shape_hint(torch.tensor(1.0), torch.zeros(27), {}, ((32, 27),))
    assert feedback.hint(found) == feedback.hint_summed_everything((0,))


@pytest.mark.parametrize(
    ("maxdiff", "scale", "word"),
    [(1e-9, 0.01, "is inaccurate"), (6.7e-5, 0.01, "has wrong values"), (0.5, None, "wrong")],
)
def test_inaccurate_only_for_round_off(maxdiff, scale, word):
    assert word in feedback.inaccurate("dx", maxdiff, (0, 0), (1e-5, 1e-5), scale)


def test_a_consumer_that_sums_the_answer_offers_no_candidate():
    row_sums = U.sum(1, keepdim=True)  # the upstream gradient of `s = h.sum(1, keepdim=True)`
    assert candidates.local_derivative(2 * TANH, TANH, VALUES, row_sums) is None
