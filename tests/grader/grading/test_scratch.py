"""The scratchpad: code runs in the sandbox on an exercise's inputs, ungraded, and every tensor
it assigns comes back as shape, dtype and first values; autograd is refused as in grading."""

from __future__ import annotations

import pytest

from grader import Grader
from grader.grading.scratch import assigned_names, preview


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog)


def test_assigned_tensors_come_back_with_shapes_and_values(grader):
    code = "x = counts * dprobs\ns = x.sum(1, keepdim=True)\nk = n\nprint(s.shape)\n"
    result = grader.scratch("dcounts_sum_inv", code)
    assert result.ok, result.message
    rows = {row.name: row for row in result.rows}
    assert rows["x"].shape == (32, 27) and rows["x"].dtype == "float32"
    assert rows["s"].shape == (32, 1) and rows["s"].preview.startswith("[")
    assert rows["k"].shape is None and "int" in rows["k"].note
    assert result.stdout.strip() == "torch.Size([32, 1])"


def test_the_answer_name_shows_the_learners_own_values_only(grader):
    result = grader.scratch("dprobs", "dprobs = torch.full_like(probs, 7.0)\n")
    (row,) = result.rows
    assert row.name == "dprobs" and row.preview.startswith("[7, 7, 7, 7, 7, 7 …]")


@pytest.mark.parametrize(
    "code",
    [
        "probs.requires_grad_(True)\ny = probs.log().sum()\ny.backward()\n",
        "g = getattr(torch, 'enable' + '_grad')\n",
    ],
)
def test_autograd_is_refused_as_in_grading(grader, code):
    result = grader.scratch("dprobs", code)
    assert not result.ok and not result.rows
    assert "autograd" in result.message


def test_an_exception_keeps_what_ran_before_it(grader):
    result = grader.scratch("dcounts_sum_inv", "x = counts * 2\ny = counts @ counts\n")
    assert not result.ok and result.error.type == "RuntimeError" and result.error.line == 2
    assert [row.name for row in result.rows] == ["x"]


def test_a_loop_and_a_syntax_error(grader):
    looped = grader.scratch("dprobs", "for i in range(3):\n    t = probs[i]\n")
    assert [(row.name, row.shape) for row in looped.rows] == [("i", None), ("t", (27,))]
    broken = grader.scratch("dprobs", "x = (\n")
    assert not broken.ok and "syntax error on line" in broken.message


def test_names_and_previews():
    import ast

    import torch

    tree = ast.parse("a = 1\nb, c = 2, 3\nfor i in range(2):\n    a = i\n")
    assert assigned_names(tree) == ("a", "b", "c", "i")
    assert preview(torch.tensor([1.0, 2.0])) == "[1, 2]"
    assert preview(torch.arange(10.0)) == "[0, 1, 2, 3, 4, 5 …]  min 0, max 9"
    assert preview(torch.zeros(0)) == "(empty)"


# Issue 19: run-time attacks through the scratchpad (the same worker as grading), written so
# that no static rule sees them: the worker itself must refuse.
TORCHSCRIPT = (
    "def f(x: torch.Tensor):\n    with torch.enable_grad():\n        x.requires_grad_()\n"
    "        y = (x * x).sum()\n        return torch.autograd.grad([y], [x])[0]\n"
)
SCRATCH_ATTACKS = {
    "log-softmax-kernel": "d = torch.zeros_like(logits)\nd[range(n), Yb] = -1.0 / n\n"
    "ls = torch.log_softmax(logits, 1)\n"
    "g = torch.ops.aten._log_softmax_backward_data(d, ls, 1, ls.dtype)\n",
    "log-softmax-kernel-in-torch": "d = torch.zeros_like(logits)\nd[range(n), Yb] = -1.0 / n\n"
    "ls = torch.log_softmax(logits, 1)\ng = torch._log_softmax_backward_data(d, ls, 1, ls.dtype)\n",
    "nll-kernel": "ls = torch.log_softmax(logits, 1)\ng = torch.ops.aten.nll_loss_backward("
    "torch.tensor(1.0), ls, Yb, None, 1, -100, torch.tensor(float(n)))\n",
    "torchscript-string": f"cu = torch.jit.CompilationUnit({TORCHSCRIPT!r})\ng = cu.f(logits)\n",
}


@pytest.mark.parametrize("name", SCRATCH_ATTACKS)
def test_the_scratchpad_refuses_each_class_at_run_time(grader, name):
    result = grader.scratch("dlogits_fused", SCRATCH_ATTACKS[name])
    shown = {row.name: row for row in result.rows}
    assert "g" not in shown or shown["g"].shape is None, (name, result)
    assert not result.ok, (name, result)
