"""The detectors of wrong answers built in the parent: local derivatives, indexing with the
targets, a fused formula's terms, products of sums; each as a table of (case, answer, sentence)."""

from __future__ import annotations

import ast

import pytest
import torch

from grader.feedback import detectors, diagnose
from grader.feedback import voice as feedback
from grader.feedback.detectors import Term
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
        (
            "tanh's derivative applied twice",
            (1 - H**2) * (1 - H**2) * U,
            feedback.hint_derivative_twice("dh", "1 - `h`**2", LINE["h"]),
        ),
        (
            "tanh's derivative without the square",
            (1 - H) * U,
            feedback.hint_wrong_local_derivative("dh", "1 - `h`", LINE["h"], "1 - `h`**2"),
        ),
        ("the local derivative alone", 1 - H**2, feedback.hint_local_only("dh")),
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
        ("one column left", "left", (P - torch.roll(ONEHOT, -1, 1)) / 8),
        ("the first target's column in every row", "column", (P - ONEHOT[:1]) / 8),
        ("[Yb, range(n)]", "swapped", None),
    ],
)
def test_a_slip_of_indexing_with_the_targets_is_named(case, where, got):
    if got is None:
        got = P.clone()
        if where == "columns":
            got[:, Y] -= 1
        elif where == "swapped":  # rows 0..3 are targets and there are 8 rows in 5 columns
            got = P[:5].clone()
            got[Y[:5], range(5)] -= 1
            got, dlogits = got / 5, (P[:5] - ONEHOT[:5]) / 5
            values = VALUES | {"Yb": Y[:5]}
            assert detectors.index_slip(got, dlogits, values) == ("swapped", "Yb"), case
            return
        else:
            got[Y] -= 1
        got = got / 8
    hint = feedback.hint_index_targets(where, "Yb")
    assert _hint(got, DLOGITS, upstream={"loss": torch.tensor(1.0)}) == hint, case


def test_log_softmax_for_softmax_is_named_by_its_tensor():
    values = VALUES | {"logprobs": P.log()}
    got = (P.log() - ONEHOT) / 8
    assert detectors.swapped_tensor(got, DLOGITS, values) == ("logprobs", "probs")
    assert detectors.swapped_tensor(DLOGITS.clone(), DLOGITS, values) is None


def test_a_right_answer_is_no_slip_of_indexing():
    assert detectors.index_slip(DLOGITS.clone(), DLOGITS, VALUES) is None


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
            feedback.hint_fused_term((Term("bnvar", "((n-1)/n)**2", bessel="n"),)),
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
    said = feedback.hint_sums_multiplied("x", "dh", checked=True)  # x.T @ dh checked here
    assert _hint(got, expected, upstream={"h": U}) == said


def test_the_power_rule_names_its_exponent():
    line = {"h": "h = (x + 1e-5) ** -0.5"}
    expected = -0.5 * X.abs() * U
    assert _hint(-2 * expected, expected, lines=line) == feedback.hint_power_rule(-0.5)


def test_wrong_values_everywhere_are_a_formula_not_a_where_list():
    got = torch.randn((8, 5), generator=g)
    share = diagnose.spread(got, DLOGITS).share  # measured: almost every entry differs
    assert share >= 0.9 and _hint(got, DLOGITS, upstream={}) == feedback.hint_formula_wrong(
        share, index_tried=True
    ), "the slips of indexing with `Yb` were tried, so it is not an index"


def test_the_targets_entries_alone_and_an_answer_of_zeros_are_named():
    got = P / 8
    got[range(8), Y] = -1 / 8  # `= -1` for `-= 1`
    hint = feedback.hint_target_entries("dx", "Yb")
    assert _hint(got, DLOGITS, upstream={"loss": torch.tensor(1.0)}) == hint
    assert _hint(torch.zeros(8, 5), DLOGITS, upstream={}) == feedback.hint_zeros_only()


def test_a_softmax_over_the_batch_and_a_factor_left_out_are_named():
    logits = torch.randn((8, 5), generator=g)
    values = VALUES | {"logits": logits}
    expected = (torch.softmax(logits, 1) - ONEHOT) / 8
    got = (torch.softmax(logits, 0) - ONEHOT) / 8
    hint = feedback.hint_softmax_wrong_dim("logits", 0, 1)
    assert detectors.softmax_dim(got, expected, values) == ("logits", 0, 1)
    assert feedback.hint(hints.Found(hints.m.SOFTMAX_WRONG_DIM, ("logits", 0, 1))) == hint
    scale = torch.rand((8, 1), generator=g) + 0.5
    assert detectors.missing_factor(U, U * scale, {"rstd": scale}) == ("rstd", True)
    assert detectors.missing_factor(U * scale, U, {"rstd": scale}) == ("rstd", False)


def test_a_matmul_whose_diagonal_is_the_gradient_is_named():
    expected = (X * U).sum(0, keepdim=True)
    found = detectors.shape_mismatch(X.T @ U, expected)
    assert feedback.hint(found) == feedback.hint_matmul_for_sum()


def test_the_power_rule_kept_exponent_is_named():
    out = torch.rand((1, 5), generator=g) + 0.5  # y = x ** -0.5
    up = torch.randn((1, 5), generator=g)
    assert detectors.power_kept(-0.5 * out * up, out, up, -0.5)
    assert not detectors.power_kept(-0.5 * out**3 * up, out, up, -0.5)


def test_a_few_wrong_entries_are_listed_by_place():
    got = DLOGITS.clone()
    got[2, 3] += 1.0
    said = feedback.hint_where((2,), (3,), diagnose.spread(got, DLOGITS).share, 1, ())
    assert _hint(got, DLOGITS, upstream={}) == said, "one entry: listed, not placed by a tensor"


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
        (
            "index_add_ along dim 1",
            "RuntimeError",
            "index_add_(): Number of indices (96) should be equal to source.size(dim): (10), "
            "for dim: 1",
            feedback.hint_index_add_shape(1),
        ),
        (
            "max(1) without .indices",
            "TypeError",
            "one_hot(): argument 'input' (position 1) must be Tensor, not torch.return_types.max",
            feedback.hint_pair_not_taken("max"),
        ),
        (
            "scatter_ with a 1-D index",
            "RuntimeError",
            "Index tensor must have the same number of dimensions as self tensor",
            feedback.hint_index_dims(),
        ),
        (
            ".t without its call",
            "TypeError",
            "unsupported operand type(s) for @: 'Tensor' and 'builtin_function_or_method'",
            feedback.hint_method_not_called(),
        ),
        (
            "transpose() without dims",
            "TypeError",
            'transpose() missing 2 required positional argument: "dim0", "dim1"',
            feedback.hint_transpose_no_dims(),
        ),
        (
            "an index past the end",
            "IndexError",
            "index 27 is out of bounds for dimension 1 with size 27",
            feedback.hint_index_out_of_range(27, 1, "27"),
        ),
        (
            "a batched @ for *",
            "RuntimeError",
            "Expected size for first two dimensions of batch2 tensor to be: [32, 20] but got: "
            "[32, 4].",
            feedback.hint_matmul_for_elementwise(),
        ),
    ],
)
def test_pytorchs_errors_for_api_slips_get_a_sentence(case, kind, message, hint):
    assert feedback.hint(detectors.pytorch_error(kind, message, {})) == hint, case


def test_a_sum_of_everything_is_named():
    found = detectors.shape_mismatch(torch.tensor(1.0), torch.zeros(27), {}, ((32, 27),))
    assert feedback.hint(found) == feedback.hint_summed_everything((0,))


@pytest.mark.parametrize(
    ("maxdiff", "scale", "word"),
    [(1e-9, 0.01, "is inaccurate"), (6.7e-5, 0.01, "has wrong values"), (0.5, None, "wrong")],
)
def test_inaccurate_only_for_round_off(maxdiff, scale, word):
    assert word in feedback.inaccurate("dx", maxdiff, (0, 0), (1e-5, 1e-5), scale)


def test_a_consumer_that_sums_the_answer_offers_no_candidate():
    row_sums = U.sum(1, keepdim=True)  # the upstream gradient of `s = h.sum(1, keepdim=True)`
    assert detectors.local_derivative(2 * TANH, TANH, VALUES, row_sums) is None


def test_an_index_of_targets_then_rows_is_found_in_the_source():
    tree = ast.parse("d = torch.zeros_like(lp)\nd[Yb, range(n)] = -1.0 / n")
    assert detectors.index_order(tree) == ("Yb", "range(n)")
    assert detectors.index_order(ast.parse("d[Yb, torch.arange(n)] = 1")) == (
        "Yb",
        "torch.arange(n)",
    )
    assert detectors.index_order(ast.parse("d[range(n), Yb] = -1.0 / n")) is None
    said = feedback.hint_index_order("Yb", "range(n)")
    assert "`Yb`" in said and "[range(n), Yb]" in said and "wrong order" in said


@pytest.mark.parametrize(
    ("code", "dims"),
    [
        ("x.sum(0, keepdim=True)", (0,)),
        ("x.mean(-1, keepdim=True) + (x * y).sum(dim=1)", (-1, 1)),
        ("torch.sum(x, 0) - torch.mean(x, dim=(0, 1))", (0, 0, 1)),
        ("x.sum(axis=1) * x.var(0)", (1, 0)),
        ("x.sum() + x.sum(d) + x.max(1).values", ()),
    ],
)
def test_the_dims_a_reduction_names_are_read_from_code(code, dims):
    assert sorted(detectors.reduction_dims(ast.parse(code))) == sorted(dims)


def _fused(got, reduced, stat_dims=(0,)):
    """Return the misconception found in a fused formula's answer that reduces over `reduced`."""
    clues = Clues(
        DIRECT + MEAN + VAR, DIRECT + MEAN + VAR, "hprebn", 8, {"n": 8, "n_hidden": 5},
        terms=lambda: TERMS, reduced=lambda: reduced, stat_dims=lambda: stat_dims,
    )  # fmt: skip
    return hints.find(LECTURE, got, clues)


def test_a_fused_formula_summed_over_the_wrong_dim_names_both_dims():
    got = DIRECT + MEAN.mean(1, keepdim=True) + VAR.mean(1, keepdim=True)  # one value per row
    found = _fused(got, reduced=(1, 1))
    assert found.misconception == "fused_wrong_dim"
    said = feedback.hint(found)
    assert said == feedback.hint_fused_wrong_dim(1, "n_hidden", 0, "n", ("bnmeani", "bnvar"))
    assert "sums over dim 1 (n_hidden)" in said and ".sum(0" not in said, "no code: unchecked"
    checked = feedback.hint_fused_wrong_dim(1, "n_hidden", 0, "n", ("bnmeani",), checked=True)
    assert "`.sum(0, keepdim=True)`" in checked
    layernorm = _fused(got, reduced=(0,), stat_dims=(-1, -1))
    assert feedback.hint(layernorm) == feedback.hint_fused_wrong_dim(
        0, "n", -1, "n_hidden", ("bnmeani", "bnvar")
    )


def test_a_fused_formula_over_the_right_dim_is_not_said_to_sum_over_the_wrong_one():
    got = DIRECT + MEAN.mean(1, keepdim=True) + VAR.mean(1, keepdim=True)
    assert _fused(got, reduced=(1,)).misconception == "fused_wrong_dim"
    assert _fused(got, reduced=(0, 0)).misconception != "fused_wrong_dim"
    assert _fused(got, reduced=(-2,)).misconception != "fused_wrong_dim"
    assert _fused(got, reduced=(1,), stat_dims=()).misconception != "fused_wrong_dim"
