"""Autograd switched back on at run time, by class, and a slot held past its verdict (issue 19).

(a) operator registries and the JIT; (b) originals of swapped functions kept in other containers;
(c) native calls to the C++ grad-mode flag; (d) a new thread, which starts with grad mode on;
(e) the library's backward kernels, which solve the fused exercises; (f) a run whose leader has
exited while another of its threads lives. No static rule is involved: the code reaches the
sandbox as it is. Each attack would return `out`, made by autograd; none may come back.
"""

from __future__ import annotations

import os
import platform
import socket
import threading
import time

import pytest
import torch

from grader.sandbox import Case, zygote
from grader.sandbox.protocol import send_packet

LEAF = "x = torch.ones(3, requires_grad=True)\n"
BACKWARD = "y = (x * x).sum()\nout = y.grad_fn(torch.tensor(1.0))\n"
LIBC10 = "lib = os.path.join(os.path.dirname(torch.__file__), 'lib', 'libc10.so')\n"
SET_FLAG = "getattr(ctypes.CDLL(lib), '_ZN3c108GradMode11set_enabledEb')(True)\n"
FUSED = (
    "logits = torch.randn(3, 4)\nY = torch.tensor([0, 1, 2])\n"
    "ls = torch.log_softmax(logits, 1)\nh = torch.randn(3, 4)\n"
    "mean = h.mean(0)\ninvstd = (h.var(0, unbiased=False) + 1e-5) ** -0.5\n"
)
ATTACKS = {
    # (a) operator registries and the JIT
    "a/ops-set-grad-enabled": "getattr(torch.ops.aten, '_set_grad_' + 'enabled')(True)\n"
    + LEAF
    + BACKWARD,
    "a/jit-get-operation": "op = torch._C._jit_get_operation('aten::set_grad_enabled')[0]\n"
    "op(True)\n" + LEAF + BACKWARD,
    "a/torchscript-from-string": "cu = torch.jit.CompilationUnit('''\n"
    "def f(x: torch.Tensor):\n    with torch.enable_grad():\n"
    "        x.requires_grad_()\n        y = (x * x).sum()\n"
    "        return torch.autograd.grad([y], [x])[0]\n''')\n"
    "out = cu.f(torch.ones(3))",
    "a/script-function": "def f(x: torch.Tensor):\n    torch.set_grad_enabled(True)\n"
    "    return x\nout = torch.jit.script(f)(torch.ones(3))",
    # (b) originals that survive in other containers
    "b/builtin-ops-table": "import torch.jit._builtins as b\n"
    "fs = [f for f, name in b._builtin_ops if 'grad' in name]\n"
    "[f(True) for f in fs if getattr(f, '__name__', '') == '_set_grad_enabled']\n"
    + LEAF
    + BACKWARD,
    "b/overrides-ignored": "fs = [f for f in torch.overrides.get_ignored_functions()\n"
    "      if getattr(f, '__name__', '') == '_set_grad_enabled']\nfs[0](True)\n" + LEAF + BACKWARD,
    "b/grad-mode-state": "import torch.autograd.grad_mode as gm\n"
    "gm.set_grad_enabled(True).__enter__()\n" + LEAF + BACKWARD,
    # (c) native calls
    "c/ctypes-import": "import ctypes, os\n" + LIBC10 + SET_FLAG + LEAF + BACKWARD,
    "c/ctypes-via-sys-modules": "import sys, os\nctypes = [m for k, m in sys.modules.items()"
    " if k.endswith('ctypes')][0]\n" + LIBC10 + SET_FLAG + LEAF + BACKWARD,
    "c/ctypes-via-subclasses": "import os\n"
    "cdata = [c for c in object.__subclasses__() if c.__name__ == '_CData'][0]\n"
    "fptr = [c for c in cdata.__subclasses__() if c.__name__ == 'CFuncPtr'][0]\n"
    "out = torch.ones(3) if fptr else None\n",
    "c/ctypes-via-module-globals": "import sys\n"
    "g = [vars(m).get('ctypes') for m in list(sys.modules.values())]\n"
    "g = [m for m in g if m is not None]\nlibc = g[0].CDLL(None)\nout = torch.ones(3)",
    # (d) a new OS thread
    "d/threading": "import threading\nres = {}\ndef go():\n    "
    + LEAF.replace("\n", "\n    ")
    + "res['g'] = (x * x).sum().grad_fn(torch.tensor(1.0))\n"
    "t = threading.Thread(target=go)\nt.start()\nt.join()\nout = res['g']",
    "d/jit-fork": "def go():\n    "
    + LEAF.replace("\n", "\n    ")
    + "return (x * x).sum().grad_fn(torch.tensor(1.0))\n"
    "out = torch.jit.wait(torch.jit._fork(go))",
    "d/original-start-new-thread": "import threading\nres = {}\ndef go():\n    "
    + LEAF.replace("\n", "\n    ")
    + "res['g'] = (x * x).sum().grad_fn(torch.tensor(1.0))\n"
    "start = [v for v in vars(threading).values() if getattr(v, '__name__', '') == "
    "'start_joinable_thread' or getattr(v, '__name__', '') == 'start_new_thread']\n"
    "start[0](go, ())\nout = res['g']",
    # (e) backward kernels
    "e/log-softmax-backward": FUSED + "d = torch.zeros_like(ls)\nd[range(3), Y] = -1 / 3\n"
    "out = torch.ops.aten._log_softmax_backward_data(d, ls, 1, ls.dtype)",
    "e/log-softmax-backward-by-torch": FUSED + "d = torch.zeros_like(ls)\nd[range(3), Y] = -1/3\n"
    "out = getattr(torch, '_log_softmax_backward' + '_data')(d, ls, 1, ls.dtype)",
    "e/nll-loss-backward": FUSED + "out = torch.ops.aten.nll_loss_backward(torch.tensor(1.0), "
    "ls, Y, None, 1, -100, torch.tensor(3.0))",
    "e/batch-norm-backward": FUSED + "out = torch.ops.aten.native_batch_norm_backward("
    "torch.ones(3, 4), h, torch.ones(4), None, None, mean, invstd, True, 1e-5, "
    "[True, True, True])[0]",
    "e/tanh-backward": "t = torch.randn(3).tanh()\n"
    "out = torch.ops.aten.tanh_backward(torch.ones(3), t)",
}
ONE = [Case("a", {}, {}, ("out",))]


@pytest.mark.parametrize("name", ATTACKS)
def test_no_class_of_attack_gets_autograd_back(sandbox, honest, name):
    outcome = sandbox.run(ATTACKS[name], ONE)
    returned = outcome.cases[0].returned.get("out") if outcome.cases else None
    assert returned is None or returned.tensor is None, (name, outcome)
    honest()


def test_native_calls_are_refused_even_when_found(sandbox):
    code = "import sys\nfound = [m for m in gc.get_objects() if type(m).__name__ == 'CDLL']\n"
    outcome = sandbox.run("import gc\n" + code + "out = torch.ones(len(found) + 1)", ONE)
    assert outcome.cases[0].returned["out"].tensor.shape == (1,), outcome


def test_an_output_made_by_autograd_is_refused():
    from grader.sandbox import audit

    x = torch.ones(3, requires_grad=True)
    assert audit.output_problem(x * x) is not None
    assert audit.output_problem(torch.ones(3)) is None
    assert audit.output_problem(x) is None  # a leaf that asks for grad made nothing by autograd


def test_every_backward_kernel_and_grad_op_is_refused_by_name():
    from grader.sandbox import audit

    kernels = ("aten::nll_loss_backward", "aten::_log_softmax_backward_data")
    grad_ops = ("aten::native_batch_norm_backward", "aten::set_grad_enabled", "aten::_make_dual")
    for name in kernels + grad_ops:
        assert audit.refused(name), name
    for name in ("aten::mul", "aten::log_softmax", "aten::native_batch_norm", "aten::sum"):
        assert not audit.refused(name), name


def test_the_layers_are_reported(sandbox):
    layers = sandbox.layers()
    for name in ("threads", "dispatch-audit", "native-calls", "autograd"):
        assert layers[name] == "on", (name, layers[name])


def test_is_native_recognises_ctypes_objects_only():
    import ctypes

    from grader.sandbox import nativecalls

    assert nativecalls.is_native(ctypes) and nativecalls.is_native(ctypes.c_int(1))
    assert nativecalls.is_native(ctypes.CDLL) and nativecalls.is_native(ctypes.sizeof)
    assert not nativecalls.is_native(torch) and not nativecalls.is_native(os.getpid)


SYS_EXIT = {"x86_64": 60, "aarch64": 93}.get(platform.machine())


def _leader_exits_thread_lingers(ready_w: int, hold_r: int) -> None:
    """In a forked child: start a thread that blocks forever, then end the leader thread only."""
    import ctypes

    os.setsid()
    threading.Thread(target=os.read, args=(hold_r, 1), daemon=True).start()
    os.write(ready_w, b"x")
    ctypes.CDLL(None).syscall(SYS_EXIT, 0)  # exit(2) of this thread, not exit_group(2)
    os._exit(1)


@pytest.mark.timeout(300)  # without the fix, watch() waits for the deadline: far beyond this
@pytest.mark.skipif(SYS_EXIT is None, reason="no SYS_exit number for this machine")
def test_stop_kills_a_run_whose_leader_exited_while_a_thread_lives():
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ready_r, ready_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            _leader_exits_thread_lingers(ready_w, hold_r)
        finally:
            os._exit(1)
    try:
        assert os.read(ready_r, 1) == b"x"
        send_packet(theirs, {"kind": "stop", "id": 1})
        zygote.watch(pid, ours, time.monotonic() + 3600)
        _, status = os.waitpid(pid, 0)  # the whole group is gone: the slot is free
        assert os.WIFSIGNALED(status) or os.WIFEXITED(status)
    finally:
        for fd in (ready_r, ready_w, hold_r, hold_w):
            os.close(fd)
        ours.close()
        theirs.close()
