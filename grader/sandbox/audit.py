"""Audit every tensor operation the learner's code dispatches, and every output it returns.

A dispatch mode (`Audit`) is entered in the worker before the learner's code runs and never left:
every operation the code dispatches, by any route (a tensor method, `torch.ops`, TorchScript, a
function found anywhere), passes through it. It lets through only the forward operations the
exercise language can dispatch (`ALLOWED`: grader/language/operations.txt, handed to the zygote
by the parent, since the zygote cannot read the project), and refuses
- every other operation, by its name;
- a backward kernel (`aten::*_backward*`: autograd by another name, such as
  `_log_softmax_backward_data`, `nll_loss_backward` or `native_batch_norm_backward`) and the
  forward-mode AD operators, even if a list named them;
- any operation while grad mode is on (however it was switched on, it is never on honestly).
Outputs are audited after the code ran: a tensor with a `grad_fn` was made by autograd.
noautograd.py makes the mode impossible to leave from Python names (popping or disabling modes).
"""

from __future__ import annotations

import torch
from torch.utils._python_dispatch import TorchDispatchMode

# Grad mode and forward-mode AD by operator name (the JIT registry holds some of them).
GRAD_OPS = (
    "_make_dual", "_unpack_dual", "_fw_primal", "_new_zeros_with_same_feature_meta", "grad",
    "_fw_grad", "_set_fw_grad", "requires_grad_", "retain_grad", "enable_grad",
)  # fmt: skip


class AutogradForbidden(BaseException):
    """The learner's code dispatched autograd's machinery (a BaseException: `except` misses it)."""


def refused(name: str) -> bool:
    """Return whether an operator, by its qualified name ("aten::mul"), is autograd's."""
    base = name.rsplit("::", 1)[-1]
    return "backward" in base or "grad_enabled" in base or base in GRAD_OPS


ALLOWED: frozenset[str] = frozenset()  # set by `allow` in the zygote, before any worker forks


def allow(operations) -> None:
    """Let through these operations (qualified names) from now on, and no others."""
    global ALLOWED
    ALLOWED = frozenset(operations)
    _CACHE.clear()


def _verdict(func, _cache={}) -> bool:  # noqa: B006 (the cache is the point)
    """Return (and remember) whether an OpOverload is refused."""
    verdict = _cache.get(func)
    if verdict is None:
        name = func._schema.name
        verdict = _cache[func] = refused(name) or name not in ALLOWED
    return verdict


_CACHE = _verdict.__defaults__[0]


class Audit(TorchDispatchMode):
    """Refuse backward kernels and any operation dispatched while grad mode is on."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False  # no torch._dynamo wrapper: it is never imported in a worker

    def __torch_dispatch__(
        self, func, types, args=(), kwargs=None, _grad=torch._C.is_grad_enabled, _check=_verdict
    ):
        if _grad() or _check(func):
            raise _refusal(func._schema.name)
        return func(*args, **(kwargs or {}))


def _refusal(name: str) -> AutogradForbidden:
    """Return the exception for a refused operation, naming it."""
    if refused(name) or name in ALLOWED:  # autograd's, or any operation with grad mode on
        return AutogradForbidden(
            f"autograd is not available here: write the gradient by hand ({name} refused)"
        )
    return AutogradForbidden(f"{name} is not an operation of the exercise language (refused)")


def enter() -> Audit:
    """Enter the audit for good in this process, once (a spare enters it before its run);
    return the mode."""
    if _entered:
        return _entered[0]
    mode = Audit()
    torch._C._push_on_torch_dispatch_stack(mode)
    _entered.append(mode)
    return mode


_entered: list[Audit] = []


def output_problem(value: torch.Tensor) -> str | None:
    """Return why an output tensor betrays autograd (it has a grad_fn), or None."""
    if value.grad_fn is not None or (value.requires_grad and not value.is_leaf):
        return "was computed by autograd (it has a grad_fn)"
    return None


def rehearse(job=None) -> None:
    """Run a few operations, and job() if given, under the audit (then leave it) so that
    workers inherit it warm: the operators torch resolves for a dispatch mode on their first
    call, and the audit's verdicts, are made once here and not in every worker."""
    if not ALLOWED:
        raise RuntimeError("the dispatch audit was given no operations to let through")
    torch._C._push_on_torch_dispatch_stack(Audit())  # not `enter`: it is left again below
    try:
        torch._C._set_grad_enabled(False)
        x = torch.randn(4, 3)
        (x @ x.T).tanh().sum(0, keepdim=True).exp().log()
        torch.nn.functional.cross_entropy(x, torch.zeros(4, dtype=torch.long))
        if job is not None:
            job()
    finally:
        torch._C._pop_torch_dispatch_stack(None)
