"""The detectors of issue 38 one by one, as tables of (case, input, what they find): a local
derivative's factors read from a forward line, a neighbouring step, a branch's factor left out,
an embedding's routing, a precedence slip's rewrites, the other rewrites a remedy is checked
with, where differing entries sit, and a fused formula's terms weighed only when they are part
of the gradient. None runs learner code."""

from __future__ import annotations

import ast
import inspect

import pytest
import torch

from grader.course import rules
from grader.feedback import detectors, diagnose
from grader.feedback import voice as feedback
from grader.feedback.detectors import brackets, chain, lookups, rewrites
from grader.feedback.voice import claims, steps

g = torch.Generator().manual_seed(38)
X = torch.randn((8, 5), generator=g)
U = torch.randn((8, 5), generator=g)


@pytest.mark.parametrize(
    ("line", "wrt", "factors"),
    [
        ("bndiff2 = bndiff**2", "bndiff", ("2", "bndiff")),
        ("bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)", "bndiff2", ("1 / (n - 1)",)),
        ("bnvar_inv = (bnvar + 1e-5) ** -0.5", "bnvar", ("-0.5", "(bnvar + 1e-5)**-1.5")),
        ("hpreact = bngain * bnraw + bnbias", "bnraw", ("bngain",)),
        ("h = torch.tanh(hpreact)", "hpreact", ("1 - h**2",)),
        ("logprobs = probs.log()", "probs", ("1 / probs",)),
        ("norm_logits = logits - logit_maxes", "logit_maxes", ("-1",)),
        ("counts_sum = counts.sum(1, keepdims=True)", "counts", ()),
        ("hprebn = embcat @ W1 + b1", "embcat", None),  # a matmul: no factor of its own
        ("logit_maxes = logits.max(1, keepdim=True).values", "logits", None),
        ("y = x * x", "x", None),  # read twice
    ],
)
def test_a_lines_local_derivative_is_read_as_its_factors(line, wrt, factors):
    assert chain.local_factors(line, wrt) == factors


def _evaluate(values):
    return lambda code: eval(code, {"torch": torch, "n": 8} | values)  # noqa: S307 (test's own)


def test_a_neighbouring_steps_factor_is_named_with_its_line():
    h = torch.tanh(X)
    expected = U.clone()  # dh
    lines = {"next:x": "h = torch.tanh(x)"}
    found = chain.neighbour_step(U * (1 - h**2), expected, lines, _evaluate({"h": h}))
    assert (found.factor, found.step, found.following) == ("1 - h**2", "x", True)
    before = {"before:h": "y = gain * h"}
    gain = torch.randn((1, 5), generator=g)
    found = chain.neighbour_step(U * gain, expected, before, _evaluate({"gain": gain}))
    assert (found.factor, found.following) == ("gain", False)
    assert chain.neighbour_step(U * 2, expected, lines, _evaluate({"h": h})) is None


def test_a_branch_missing_one_factor_names_it():
    found = chain.partial_factor(2 * U, U, "y = x**2", "x", _evaluate({"x": X}))
    assert (found.left_out, found.derivative) == ("x", "2 * x")
    assert chain.partial_factor(2 * X * U, U, "y = x**2", "x", _evaluate({"x": X})) is None


XB = torch.tensor([[1, 1, 2], [0, 3, 1], [2, 2, 2], [4, 0, 1]])
DEMB = torch.randn((4, 3, 2), generator=g)
RIGHT = torch.zeros(6, 2).index_add_(0, XB.view(-1), DEMB.view(-1, 2))


def _assigned(rows, grads):
    out = torch.zeros(6, 2)
    for row, grad in zip(rows.tolist(), grads, strict=True):
        out[row] = grad
    return out


@pytest.mark.parametrize(
    ("case", "got", "how", "position"),
    [
        ("averaged", RIGHT / torch.bincount(XB.view(-1), minlength=6).clamp(min=1)[:, None],
         "averaged", None),
        ("overwritten", _assigned(XB.view(-1), DEMB.view(-1, 2)), "overwritten", None),
        ("a context to one row", torch.zeros(6, 2).index_add_(0, XB[:, 0], DEMB.sum(1)),
         "context to one row", 0),
        ("the last position", torch.zeros(6, 2).index_add_(0, XB[:, 2], DEMB[:, 2]),
         "one position", 2),
    ],
)  # fmt: skip
def test_an_embeddings_gradient_routed_wrongly_is_named(case, got, how, position):
    found = lookups.routing(got, RIGHT, XB, DEMB)
    assert (found.how, found.position) == (how, position), case
    assert lookups.routing(RIGHT.clone(), RIGHT, XB, DEMB) is None
    assert lookups.gather_index("emb = C[Xb]  # (n, 3, 2)", "C") == "Xb"


@pytest.mark.parametrize(
    ("code", "after"),
    [
        ("d = 1 - h**2 * dh", "(1 - h ** 2) * dh"),
        ("d = 1.0 / n-1 * ones * dv", "1.0 / (n - 1) * ones * dv"),
        ("d = p - onehot / n", "(p - onehot) / n"),
        ("d = -0.5 * v + 1e-5 ** -1.5 * dv", "-0.5 * (v + 1e-5) ** -1.5 * dv"),
    ],
)
def test_a_precedence_slip_is_rewritten_with_one_bracket_more(code, after):
    assert after in [r.after for r in brackets.precedence(ast.parse(code), code)]


def test_a_bracketed_formula_gets_no_bracket_it_already_has():
    assert "(1 - h ** 2) * dh" not in [
        r.after for r in brackets.precedence(ast.parse("d = (1 - h**2) * dh"))
    ]


@pytest.mark.parametrize(
    ("rewrite", "code", "after"),
    [
        (lambda t: rewrites.transposes(t, 1, ast.Mult), "dh = dlogits * W2.T", "dlogits @ W2.T"),
        (lambda t: rewrites.transposes(t, 1), "dW = x @ d", "x.T @ d"),
        (lambda t: rewrites.matmul_as_product(t, 1, True), "s = a @ b.T",
         "(a * b).sum(1, keepdim=True)"),
        (lambda t: rewrites.sum_over(t, (0,), False), "db = d.sum()", "d.sum(0)"),
        (lambda t: rewrites.one_hot_classes(t, "V"), "y = F.one_hot(Y)",
         "F.one_hot(Y, num_classes=V)"),
        (rewrites.index_once, "a[range(n)][Y] = 1", "a[range(n), Y] = 1"),
        (rewrites.accumulate, "for i in r:\n    dC[X[i]] = d[i]", "dC[X[i]] += d[i]"),
        (rewrites.index_add_flat, "dC.index_add_(0, Xb, demb)",
         "dC.index_add_(0, Xb.reshape(-1), demb.reshape(-1, demb.shape[-1]))"),
        (lambda t: rewrites.reduced_over(t, {1}, 0, True), "d = torch.sum(g, dim=1)",
         "d = torch.sum(g, dim=0, keepdim=True)"),
    ],
)  # fmt: skip
def test_a_rewrite_changes_the_one_thing_its_sentence_proposes(rewrite, code, after):
    assert after in [r.after for r in rewrite(ast.parse(code))]


def test_the_entries_that_differ_are_placed_only_when_every_one_is_so_placed():
    targets = torch.tensor([0, 3, 1, 3, 3, 2, 0, 1])
    bad = torch.zeros(8, 5, dtype=torch.bool)
    bad[torch.arange(8), X.argmax(1)] = True
    assert detectors.entries_at(bad, {"x": X, "Yb": targets}, "x") == (("largest", "x"),)
    bad[0, (X[0].argmax() + 1) % 5] = True  # one entry neither a target nor a largest
    assert detectors.entries_at(bad, {"x": X, "Yb": targets}, "x") == ()


def test_a_term_absent_from_the_gradient_is_never_named():
    onehot, probs, argmax = (torch.randn((8, 5), generator=g) for _ in range(3))
    terms = (("", -onehot), ("logit_maxes", argmax), ("counts_sum", probs))
    expected = probs - onehot  # the max's path cancels: not part of the gradient
    wrong = detectors.terms_wrong(probs - 8 * onehot, terms, [], expected)
    assert [t.term for t in wrong] == [""] and wrong[0].label == "8"
    assert detectors.terms_wrong(-(probs - onehot), terms, [], expected) is None, "a sign"


def test_the_share_of_entries_and_the_most_per_row_are_measured():
    got = U.clone()
    got[:, 2] += 1.0
    measured = diagnose.spread(got, U)
    assert (round(measured.share, 3), measured.per_row, measured.cols) == (0.2, 1, (2,))


def test_the_lectures_own_slip_of_shape_is_recognised_as_written():
    assert detectors.lectures_own(ast.parse("dbnmeani = (-dbndiff).sum(0)"), "dbnmeani")
    assert detectors.lectures_own(ast.parse("dbnmeani=( -dbndiff ).sum(0) # x"), "dbnmeani")
    assert not detectors.lectures_own(ast.parse("dbnmeani = -dbndiff.sum(0)"), "dbnmeani")


def test_the_lines_a_root_cause_needs_come_with_their_helpers():
    tree = ast.parse("a = 1\ns = h * (1 - h)\nt = s\ndh = t * u\nz = 2")
    assert rules.statements_needed(tree, "dh", {"h", "u"}) == "s = h * (1 - h)\nt = s\ndh = t * u"


@pytest.mark.parametrize("chapter", [steps, claims, chain, lookups, brackets, rewrites])
def test_every_function_of_the_new_chapters_is_on_their_face(chapter):
    room = feedback if chapter in (steps, claims) else detectors
    defined = {
        name
        for name, f in inspect.getmembers(chapter, inspect.isfunction)
        if f.__module__ == chapter.__name__ and not name.startswith("_")
    }
    assert defined <= set(chapter.__all__) <= set(room.__all__), chapter.__name__


def test_a_submission_runs_a_few_rewrites_at_most_and_none_after_a_slow_run():
    from grader.grading.clues import Budget

    budget = Budget(2)
    assert [budget.spend() for _ in range(3)] == [True, True, False]
    slow = Budget(8)
    slow.slow = True
    assert not slow.spend()
