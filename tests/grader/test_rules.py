"""Static checks of the learner's source: syntax with line and column, no autograd."""

from __future__ import annotations

import pytest

from grader import rules


@pytest.mark.parametrize(
    ("code", "what"),
    [
        ("loss.backward()", ".backward"),
        ("d = W1.grad", ".grad"),
        ("x = torch.autograd.grad(loss, W1)", "torch.autograd"),
        ("from torch.autograd import grad", "torch.autograd"),
        ("import torch.func", "torch.func"),
        ("f = torch.func.grad(f)", "torch.func"),
        ("W1.requires_grad_(True)", ".requires_grad_"),
        ("h.retain_grad()", ".retain_grad"),
        ("b = getattr(loss, 'backward')", "backward"),
        ("import functorch", "functorch"),
    ],
)
def test_autograd_is_found(code, what):
    problem = rules.autograd_use(rules.parse(code))
    assert problem is not None and problem.what == what and problem.line == 1


@pytest.mark.parametrize(
    "code",
    ["dh = dlogits @ W2.T", "grad = 2 * x", "dC = torch.zeros_like(C)\ndC.index_add_(0, i, d)"],
)
def test_plain_code_passes(code):
    assert rules.autograd_use(rules.parse(code)) is None


def test_syntax_error_has_line_and_column():
    problem = rules.parse("a = 1\nb = (2 +\n")
    assert isinstance(problem, rules.Problem)
    assert problem.line == 2 and problem.column is not None


def test_oversized_and_deep_code_is_refused_without_running():
    assert isinstance(rules.parse("x = 1\n" * 30_000), rules.Problem)
    assert isinstance(rules.parse("x = " + "(" * 5000 + ")" * 5000), rules.Problem)


@pytest.mark.parametrize(
    ("code", "line", "column", "char"),
    [
        ("x = 1\ny = 2\x00\n", 2, 6, "U+0000"),
        ("a = 1\nb = '\udcff'\n", 2, 6, "U+DCFF"),
    ],
)
def test_characters_that_are_not_text_are_located(code, line, column, char):
    problem = rules.parse(code)
    assert isinstance(problem, rules.Problem)
    assert (problem.line, problem.column) == (line, column)
    assert problem.what == f"the character {char} cannot appear in code"


def test_code_that_is_too_long_is_not_called_a_syntax_error():
    problem = rules.parse("x = 1\n" * 30_000)
    assert problem.line is None and problem.what == "it is longer than 100 kB"
