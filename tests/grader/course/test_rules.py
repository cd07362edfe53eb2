"""Static checks of the learner's source: syntax with line and column, no autograd."""

from __future__ import annotations

import pytest

from grader.course import rules


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
        ("b = getattr(loss, 'backward')", "getattr"),
        ("import functorch", "functorch"),
        ("p = torch.nn.Parameter(W1)", ".Parameter"),
        ("with torch.enable_grad():\n    y = W1 * 2", ".enable_grad"),
        ("torch.set_grad_enabled(True)", ".set_grad_enabled"),
        ("with torch.inference_mode(False):\n    pass", ".inference_mode"),
        ("f = y.grad_fn", ".grad_fn"),
        ("y.register_hook(print)", ".register_hook"),
        ("import torch.autograd.forward_ad as fwAD", "torch.autograd.forward_ad"),
        ("j = torch.autograd.functional.jacobian", "torch.autograd"),
        ("from torch import func", "func"),
        ("from torch import enable_grad as on", "enable_grad"),
        ("f = getattr(torch, 'fu' + 'nc')", "getattr"),
        ("import sys; m = sys.modules['torch']", ".modules"),
        ("e = __import__('torch')", "__import__"),
        ("import importlib", "importlib"),
        ("exec('x = 1')", "exec"),
        ("g = eval('1')", "eval"),
        ("c = compile('1', 'f', 'eval')", "compile"),
        ("e = torch._C._set_grad_enabled", "torch._C"),
        ("w = [c for c in object.__subclasses__()]", ".__subclasses__"),
        ("import gc", "gc"),
        ("import ctypes", "ctypes"),
        ("import inspect", "inspect"),
        ("g = vars(torch)", "vars"),
    ],
)
def test_autograd_is_found(code, what):
    problem = rules.autograd_use(rules.parse(code))
    assert problem is not None and problem.what == what and problem.line == 1


@pytest.mark.parametrize(
    "code",
    [
        "dh = dlogits @ W2.T",
        "grad = 2 * x",
        "dC = torch.zeros_like(C)\ndC.index_add_(0, i, d)",
        'print("grad", dh.shape)  # not .backward(), just a word',
        "s = 'torch.autograd.grad and requires_grad are only words here'",
        "func = lambda t: t * 2\nbackward = func(x)",
        "with torch.no_grad():\n    y = x * 2",
    ],
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
