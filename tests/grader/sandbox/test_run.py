"""Honest runs: exact tensors back, learner errors told in the learner's own lines."""

from __future__ import annotations

import pytest
import torch

from grader.sandbox import Case, Limits

from .conftest import LIMITS


def test_returns_exact_tensors_of_every_allowed_kind(sandbox):
    g = torch.Generator().manual_seed(0)
    tensors = {"a": torch.randn(5, 7, dtype=torch.float64, generator=g), "i": torch.arange(6)}
    code = "y = a.T * 3\nz = i > 2\nw = a.sum()\ne = a[:0]\nh = a.to(torch.float16)\nk = i.int()"
    outputs = ("y", "z", "w", "e", "h", "k")
    outcome = sandbox.run(code, [Case("lecture", tensors, {}, outputs)])
    assert outcome.status == "ok" and outcome.message == ""
    got = {k: r.tensor for k, r in outcome.cases[0].returned.items()}
    a = tensors["a"]
    expected = {"y": a.T * 3, "z": tensors["i"] > 2, "w": a.sum(), "e": a[:0]}
    expected |= {"h": a.to(torch.float16), "k": tensors["i"].int()}
    for name, want in expected.items():
        assert type(got[name]) is torch.Tensor
        assert got[name].dtype == want.dtype and got[name].shape == want.shape
        assert torch.equal(got[name], want), name


def test_outputs_that_share_memory_come_back_apart(run):
    code = "y = x\nz = x\nv = x[1]\nt = x.T\ne = x[:0]\nf = x[:, :0]"
    returned = run(code, outputs=("y", "z", "v", "t", "e", "f")).cases[0].returned
    x = torch.arange(12.0).reshape(3, 4)
    expected = {"y": x, "z": x, "v": x[1], "t": x.T, "e": x[:0], "f": x[:, :0]}
    for name, want in expected.items():
        assert torch.equal(returned[name].tensor, want), name
    returned["y"].tensor.add_(1)
    assert torch.equal(returned["z"].tensor, x)


def test_code_that_breaks_packing_leaves_its_tensors_unreadable(run):
    code = "torch.Tensor.numpy = lambda self: 1 / 0\ny = x\nz = 3"
    outcome = run(code, outputs=("y", "z"))
    assert outcome.status == "ok", outcome
    returned = outcome.cases[0].returned
    assert returned["y"].problem == "could not be read (ZeroDivisionError)"
    assert returned["z"].problem == "is an int, not a tensor"


def test_cases_run_in_order_with_their_own_values_and_stdout(sandbox):
    x = torch.ones(2, 2)
    cases = [
        Case(name, {"x": x}, {"n": n, "tag": name}, ("y",)) for name, n in [("a", 2), ("b", 5)]
    ]
    outcome = sandbox.run("y = x * n\nprint(tag, n)", cases)
    assert [c.name for c in outcome.cases] == ["a", "b"]
    assert [c.stdout for c in outcome.cases] == ["a 2\n", "b 5\n"]
    assert torch.equal(outcome.cases[1].returned["y"].tensor, x * 5)


def test_mutating_an_input_changes_neither_the_caller_nor_the_next_case(sandbox):
    x = torch.zeros(3)
    cases = [Case(name, {"x": x}, {}, ("y",)) for name in ("a", "b")]
    outcome = sandbox.run("x.add_(1)\ny = x.clone()", cases)
    assert torch.equal(x, torch.zeros(3))
    for case in outcome.cases:
        assert torch.equal(case.returned["y"].tensor, torch.ones(3))


def test_namespace_is_fresh_for_each_case(sandbox):
    cases = [Case(name, {}, {}, ("y",)) for name in ("a", "b")]
    outcome = sandbox.run("y = torch.tensor(float('seen' in dir()))\nseen = 1", cases)
    assert [c.returned["y"].tensor.item() for c in outcome.cases] == [0.0, 0.0]


def test_exception_reports_the_learners_line_and_only_their_frames(run):
    code = "def f(t):\n    return t @ t\n\nz = 1\ny = f(x)\n"
    outcome = run(code)
    assert outcome.status == "ok"
    error = outcome.cases[0].error
    assert error.type == "RuntimeError" and error.line == 2
    assert error.traceback.count('File "<your code>"') == 2
    assert "torch" not in error.traceback.split("\n")[1]
    assert "site-packages" not in error.traceback and "grader" not in error.traceback
    assert outcome.cases[0].returned["y"].problem == "is not defined"


def test_name_error(run):
    error = run("z = 1\ny = dx * 2").cases[0].error
    assert (error.type, error.line) == ("NameError", 2)
    assert "dx" in error.message and error.traceback.endswith("is not defined\n")


def test_syntax_error_is_reported_with_its_line(run):
    error = run("y = x\ny = (x +\n").cases[0].error
    assert error.type == "SyntaxError" and error.line == 2


def test_learner_exception_classes_and_bad_str_are_survived(run):
    code = "class E(Exception):\n    def __str__(self):\n        raise ValueError\nraise E()"
    error = run(code).cases[0].error
    assert (error.type, error.line, error.message) == ("E", 4, "<unprintable>")


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        ("pass", "is not defined"),
        ("y = [1, 2]", "is a list, not a tensor"),
        ("y = 3", "is an int, not a tensor"),
        ("y = None", "is None, not a tensor"),
        ("class MyT(torch.Tensor):\n    pass\ny = x.as_subclass(MyT)", "is a tensor subclass MyT"),
        ("y = torch.nn.Parameter(x)", "is a tensor subclass Parameter"),
        ("y = x.to(torch.complex64)", "has dtype torch.complex64"),
        ("y = torch.zeros(300000)", "is too large to return"),
    ],
)
def test_unusable_outputs_come_back_as_problems(run, code, problem):
    returned = run(code).cases[0].returned["y"]
    assert returned.tensor is None and problem in returned.problem


def test_autograd_is_forbidden(run):
    code = (
        "x.requires_grad_()\ntry:\n    (x * 2).sum().backward()\nexcept Exception:\n    pass\ny=x"
    )
    outcome = run(code)
    assert outcome.status == "forbidden" and "autograd" in outcome.message
    assert run("y = torch.autograd.grad(x.sum(), x)").status == "forbidden"


def test_run_checks_its_arguments(sandbox):
    with pytest.raises(ValueError):
        sandbox.run("y = 1", [Case("a", {"not an id": torch.ones(1)}, {}, ("y",))])
    with pytest.raises(ValueError):
        sandbox.run("y = 1", [Case("a", {"x": torch.ones(1, dtype=torch.complex64)}, {}, ())])
    with pytest.raises(ValueError):
        sandbox.run("y = 1", [Case("a", {}, {"v": float("nan")}, ())])


def test_per_run_limits_override_the_defaults(run):
    small = Limits(**{**LIMITS.__dict__, "result_bytes": 8})
    assert "too large" in run("y = x", limits=small).cases[0].returned["y"].problem


FORGERIES = [
    ("garbage on the result pipe", "import os\nos.write(3, b'garbage\\n' * 100)", "malformed"),
    (
        "a forged internal failure",
        "import sys\nwire = sys.modules['grader.sandbox.protocol']\n"
        "wire.write_frame(3, {'kind': 'internal', 'log': 'forged'})\nimport os\nos._exit(0)",
        "no_result",
    ),
    ("an exit code that claims memory", "import os\nos._exit(87)", "no_result"),
    ("an exit code that claims no result", "import os\nos._exit(86)", "no_result"),
]


@pytest.mark.parametrize(("case", "code", "status"), FORGERIES, ids=[f[0] for f in FORGERIES])
def test_what_a_worker_forges_is_its_own_fault(run, case, code, status):
    outcome = run(code)
    assert outcome.status == status
    assert "grader failed" not in outcome.message


def test_learner_text_reaches_the_parent_inert(run):
    code = "print('\\x1b[2J\\x1b[32m solved \\r\\u202e')\nraise ValueError('\\ud800\\x07')"
    outcome = run(code)
    case = outcome.cases[0]
    text = case.stdout + case.error.message
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\\x1b[2J" in case.stdout and "\\ud800" in case.error.message
    text.encode("utf-8")  # no lone surrogate left
