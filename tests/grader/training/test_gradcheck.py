"""The gradient check before training: seven cmp lines, the first wrong one named, and why."""

from __future__ import annotations

import pytest

from grader.sandbox import default_sandbox
from grader.training.gradcheck import check, first_step
from grader.training.model import lecture_model
from grader.training.records import TrainSettings

LECTURE_SHAPES = [(27, 10), (30, 200), (200,), (200, 27), (27,), (1, 200), (1, 200)]

GRADS = ("dC", "dW1", "db1", "dW2", "db2", "dbngain", "dbnbias")  # the lecture's, in its order


def _check(data, code: str, **settings):
    wire = TrainSettings(**settings).wire(data.vocab_size, data.block_size)
    return check(code, lecture_model().program(), wire, data.Xtr, data.Ytr, default_sandbox())


def test_the_reference_section_passes_with_seven_cmp_lines(default_data, reference_section):
    result = _check(default_data, reference_section)
    assert result.passed and result.root_cause is None, result
    assert [r.name for r in result.rows] == list(GRADS)
    assert [r.shape for r in result.rows] == LECTURE_SHAPES
    assert all(r.cmp.approx and r.cmp.name == str(r.shape) for r in result.rows)
    assert result.message == "All seven gradients match autograd; training can start."


def test_the_check_uses_the_chosen_n_hidden(default_data, reference_section):
    result = _check(default_data, reference_section, n_hidden=64, batch_size=20)
    assert result.passed and result.rows[1].shape == (30, 64)


@pytest.mark.parametrize(
    ("change", "root", "says"),
    [
        (
            "dW2 = dW2.T",
            "dW2",
            "`dW2` has the wrong shape: your answer is the transpose of the gradient; check the "
            "order of the matmul. Got (27, 200), expected (200, 27).",
        ),
        ("dbngain = -dbngain", "dbngain", "opposite sign"),
        ("dW1 = dW1 * n", "dW1", "constant factor of n"),
        ("del db2", "db2", "`db2` is not defined"),
        ("dC = torch.zeros_like(C)", "dC", "`dC` has wrong values"),
        ("dbnbias = dbnbias.sum()", "dbnbias", "Got (), expected (1, 200)"),
        ("dC = dC * float('nan')", "dC", "`dC` has wrong values: max abs diff nan"),
    ],
)
def test_a_wrong_gradient_is_named_with_why(default_data, reference_section, change, root, says):
    result = _check(default_data, reference_section + change + "\n")
    assert not result.passed and result.root_cause == root
    assert result.message == (
        f"`{root}` does not match autograd; training starts once all seven gradients do."
    )
    row = next(r for r in result.rows if r.name == root)
    assert row.status == "fail" and says in row.message
    assert sum(r.status == "fail" for r in result.rows) == 1


def test_the_first_wrong_gradient_in_backward_order_is_the_root(default_data, reference_section):
    wrong_tanh = reference_section.replace("(1.0 - h**2) * dh", "(1.0 - h) * dh")
    result = _check(default_data, wrong_tanh)
    failing = {r.name for r in result.rows if r.status == "fail"}
    assert {"dbngain", "dbnbias", "dW1", "dC"} <= failing and not {"dW2", "db2"} & failing
    assert result.root_cause == "dbngain"


def test_an_exception_is_reported_with_its_line(default_data, reference_section):
    result = _check(default_data, "x = 1\n1 / 0\n" + reference_section)
    assert not result.passed and result.rows == ()
    assert result.message == "Your code raised ZeroDivisionError on line 2:"
    assert result.error.line == 2


@pytest.mark.parametrize(
    ("code", "says"),
    [
        ("loss.backward()\n", "Your code uses autograd (`.backward`) on line 1"),
        ("dC = (\n", "Your code has a syntax error on line 1"),
        ("dlogits = ...\ndC = ...\n", "`dlogits` and `dC` are still `...`"),
    ],
)
def test_code_that_cannot_train_is_refused_before_it_runs(default_data, code, says):
    result = _check(default_data, code)
    assert not result.passed and result.rows == () and says in result.message


def test_the_first_step_is_the_runs_first_step(program, default_data):
    wire = TrainSettings().wire(default_data.vocab_size, 3)
    values, grads = first_step(program, wire, default_data.Xtr, default_data.Ytr)
    assert values["Xb"].shape == (32, 3) and "Xtr" not in values
    assert set(grads) == set(GRADS) and grads["dW1"].shape == (30, 200)
    again, _ = first_step(program, wire, default_data.Xtr, default_data.Ytr)
    assert all(v.equal(again[k]) for k, v in values.items())


def test_the_section_sees_the_numbers_the_shown_loop_defines(default_data, reference_section):
    uses = "dlogits = dlogits * n / batch_size\nassert (i, max_steps) == (0, 20000)\n"
    code = reference_section.replace("# 2nd layer backprop", uses + "# 2nd layer backprop")
    assert code != reference_section
    result = _check(default_data, code, steps=20_000, decay_step=10_000)
    assert result.passed, result.message
