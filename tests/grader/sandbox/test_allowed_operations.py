"""The dispatch audit's allow-list: only the exercise language's forward operations run.

No static rule is involved here: the code reaches the sandbox as it is, so what is refused is
refused at run time, by the operation's name. Printing a tensor works under the audit.
"""

from __future__ import annotations

import pytest
import torch

from grader.language import OPERATIONS
from grader.language.derive import Recorder
from grader.sandbox import audit, tensorwire, worker

OUTSIDE = {
    "fft": ("y = torch.fft.fft(x).real", "aten::_fft_r2c"),
    "sparse": ("y = x.to_sparse()", "aten::_to_sparse"),
    "strided": ("y = x.as_strided((2, 2), (1, 1))", "aten::as_strided"),
    "cholesky": ("y = torch.linalg.cholesky(x @ x.T + torch.eye(3))", "aten::linalg_cholesky_ex"),
}


@pytest.mark.parametrize("name", OUTSIDE)
def test_an_operation_outside_the_language_is_refused_by_its_name(run, honest, name):
    code, operation = OUTSIDE[name]
    outcome = run(code)
    assert outcome.status == "forbidden" and outcome.autograd, outcome
    error = outcome.cases[0].error
    assert operation in error.message and "not an operation of the exercise" in error.message
    honest()


PRINTED = {
    "tensor": ("print(x)", "tensor([[ 0.,  1.,  2.,  3.],"),
    "slice of a sum": ("print(x.sum(1)[:2])", "tensor([ 6., 22.])"),
    "f-string": ("print(f'{x.mean():.3f} {x[0, 1]}')", "5.500 1.0"),
    "large": ("print(torch.arange(5000.0).view(50, 100))", "..."),
    "non-finite": ("print(x / 0)", "tensor([[nan, inf, inf, inf],"),
    "ints and bools": ("print(x.long(), x > 5)", "True"),
}


@pytest.mark.parametrize("name", PRINTED)
def test_a_tensor_prints_under_the_audit(run, name):
    code, shown = PRINTED[name]
    outcome = run(code)
    assert outcome.status == "ok" and outcome.cases[0].error is None, outcome
    assert shown in outcome.cases[0].stdout


def test_no_operation_let_through_is_autograds():
    assert OPERATIONS and not [op for op in OPERATIONS if audit.refused(op)]


def test_a_backward_kernel_stays_refused_even_when_listed():
    kept = audit.ALLOWED
    try:
        audit.allow({"aten::tanh_backward", "aten::mul"})
        assert audit._verdict(torch.ops.aten.tanh_backward.default)
        assert not audit._verdict(torch.ops.aten.mul.Tensor)
        assert audit._verdict(torch.ops.aten.add.Tensor)  # not listed: refused
    finally:
        audit.allow(kept)


def test_the_audit_refuses_to_rehearse_without_a_list():
    kept = audit.ALLOWED
    try:
        audit.allow(())
        with pytest.raises(RuntimeError, match="no operations"):
            audit.rehearse()
    finally:
        audit.allow(kept)


def test_the_workers_own_steps_dispatch_only_allowed_operations():
    tensors = {"x": torch.randn(3, 4), "i": torch.arange(3), "d": torch.randn(2).double()}
    inputs = tensorwire.unpack_trusted(tensorwire.pack(tensors))
    namespace = {**inputs, "t": inputs["x"].T, "c": inputs["x"][:, 1], "e": torch.zeros(0, 4)}
    with torch.no_grad(), Recorder() as recorder:
        _, returned, _ = worker.collect(namespace, ["x", "t", "c", "i", "d", "e"], 10**6)
        tensorwire.unpack(tensorwire.views(returned))
    assert recorder.seen and recorder.seen <= OPERATIONS, recorder.seen - OPERATIONS


def test_a_sparse_output_would_still_be_refused():
    assert "not a dense one" in worker.problem_with(torch.eye(2).to_sparse())
