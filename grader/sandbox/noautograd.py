"""Make autograd unusable in a worker before the learner's code runs, below Python names.

Turning grad mode off is not enough when the learner can turn it back on, so every switch that
can turn it on is replaced, in every module that holds it, by a function that can only keep it
off; the originals are then unreachable from Python. What the switches guard:
- grad mode (`torch._C._set_grad_enabled`, and `_InferenceMode(False)`, which enables it);
- forward-mode AD (`_set_fwd_grad_enabled`, `_enter_dual_level`);
- torch.func's transforms (`_grad_increment_nesting`, `_jvp_increment_nesting`), which ignore an
  outer no_grad;
- new threads, which start with grad mode on, and loading extension or built-in modules anew
  (a reload of torch._C would bring the switches back).
A tensor's text is made without leaving the dispatch audit (torch's own formatting leaves every
dispatch mode, which a worker cannot), so printing a tensor works, its operations audited.
Without grad mode no graph is recorded, so `.backward()`, `autograd.grad`, hooks and a direct
call of `grad_fn` have nothing to work on.
"""

from __future__ import annotations

import ctypes
import importlib
import sys

import torch

from . import audit

AutogradForbidden = audit.AutogradForbidden  # the learner's code tried to use autograd


def disable(inference: bool = False) -> None:
    """Turn grad mode and forward AD off for good in this process (and the ones it forks); with
    `inference`, enter inference mode for good too (`stay_in_inference_mode`)."""
    importlib.import_module("encodings.idna")  # loaded lazily by sockets and urllib: load it now
    torch._C._set_grad_enabled(False)
    torch._C._set_fwd_grad_enabled(False)
    if inference:
        stay_in_inference_mode()
    swaps = [
        (torch._C, "_set_grad_enabled", _only_off),
        (torch._C, "_set_fwd_grad_enabled", _only_off),
        (torch._C, "_enter_dual_level", _refuse),
        (torch._C, "_InferenceMode", _InferenceOnly),
        (torch._C._functorch, "_grad_increment_nesting", _refuse),
        (torch._C._functorch, "_jvp_increment_nesting", _refuse),
    ]
    swaps.append((torch._C, "_jit_get_operation", _ops_by_name(torch._C._jit_get_operation)))
    swaps.append((torch._tensor_str, "_str", _tensor_text))
    for owner, names, refusal in (
        (sys.modules["_thread"], THREADS, _no_threads),
        (sys.modules["_imp"], LOADERS, _no_loading),
        (torch._C, MODE_EXITS + JIT_C, _refuse),
        (torch.jit, JIT, _refuse),
        (torch, ("compile",), _refuse),
    ):
        swaps += [(owner, name, refusal) for name in names if hasattr(owner, name)]
    _swap_everywhere({id(getattr(owner, name)): new for owner, name, new in swaps})
    for owner, name, new in swaps:
        setattr(owner, name, new)
    _forget_resolved_ops()


def stay_in_inference_mode() -> None:
    """Enter inference mode for good, before its switch is replaced (a training zygote).

    Grad mode off still sends every operation through autograd's kernels (a tenth of a small
    operation's cost); inference mode skips them, as the page's loop says it runs. The guard
    that keeps the mode is kept alive by a reference counted but held by no object, so nothing
    in Python leads to it (leaving it would only turn the mode off; grad mode stays off).
    """
    guard = torch._C._InferenceMode(True)
    guard.__enter__()
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(guard))


THREADS = ("start_new_thread", "start_joinable_thread", "start_new")
LOADERS = ("create_dynamic", "create_builtin", "exec_dynamic", "exec_builtin")
# Ways out of the dispatch audit (audit.py): popping or disabling dispatch modes, or excluding
# the Python dispatch key.
MODE_EXITS = (
    "_pop_torch_dispatch_stack", "_unset_dispatch_mode", "_set_dispatch_mode",
    "_DisableTorchDispatch", "_ExcludeDispatchKeyGuard", "_ForceDispatchKeyGuard",
    "_RestorePythonTLSSnapshot", "_DisableFuncTorch",
)  # fmt: skip
# The JIT compilers: TorchScript (from functions, modules or a string) and torch.compile.
JIT_C = (
    "CompilationUnit", "_jit_script_compile", "_jit_script_class_compile",
    "_create_function_from_trace", "_create_method_from_trace", "_jit_trace_module",
)  # fmt: skip
JIT = ("script", "trace", "trace_module", "CompilationUnit", "script_if_tracing", "load")


def _ops_by_name(original):
    """Wrap the operator registry's lookup by name so that autograd's operators are refused."""

    def lookup(qualified_name, *args, _original=original, _refused=audit.refused):
        if _refused(str(qualified_name)):
            _refuse()
        return _original(qualified_name, *args)

    return lookup


def _tensor_text(tensor, *, tensor_contents=None) -> str:
    """Stand in for torch._tensor_str._str: a tensor's text, made under the dispatch audit."""
    return torch._tensor_str._str_intern(tensor, tensor_contents=tensor_contents)


def _forget_resolved_ops() -> None:
    """Drop autograd's operators already resolved in torch.ops's namespaces (warm-up's)."""
    for namespace in list(vars(torch.ops).values()):
        entries = getattr(namespace, "__dict__", None)
        if isinstance(entries, dict):
            for name in [n for n in entries if audit.refused(f"x::{n}")]:
                del entries[name]


def _swap_everywhere(replacements: dict[int, object]) -> None:
    """Replace every module-level reference to the originals (keyed by id) in one pass."""
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for key, value in list(namespace.items()):
            if id(value) in replacements:
                namespace[key] = replacements[id(value)]


def _refuse(*args, **kwargs):
    """Stand in for an autograd entry point (and a JIT compiler, and a way out of the audit)."""
    raise audit.AutogradForbidden("autograd is not available here: write the gradient by hand")


def _no_threads(*args, **kwargs):
    """Stand in for starting a thread (a new thread would start with grad mode on)."""
    raise RuntimeError("can't start new thread: the grader runs your code on one thread")


def _no_loading(*args, **kwargs):
    """Stand in for loading a compiled module (a reload would bring the switches back)."""
    raise ImportError("the grader loads no new compiled modules; use torch, F and math")


def _only_off(enabled, *args, **kwargs) -> None:
    """Accept switching grad mode off (a no-op: it is off); refuse switching it on."""
    if enabled:
        _refuse()


class _InferenceOnly:
    """Stand in for torch._C._InferenceMode: inference mode on is harmless, off enables grad."""

    def __init__(self, mode: bool = True):
        if not mode:
            _refuse()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None
