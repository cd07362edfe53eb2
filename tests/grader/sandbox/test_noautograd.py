"""Autograd stays unusable in the worker whatever names the learner reaches (no static rules here).

Each attack would hand back `out`, a gradient computed by autograd; none may.
"""

from __future__ import annotations

import pytest
import torch

from grader.sandbox import Case

ONE = [Case("a", {}, {}, ("out",))]
LEAF = "x = torch.ones(3, requires_grad=True)\n"
ATTACKS = {
    "enable_grad": LEAF
    + "with torch.enable_grad():\n    y = (x * x).sum()\ny.backward()\nout = x.grad",
    "parameter": "p = torch.nn.Parameter(torch.ones(3))\nwith torch.enable_grad():\n"
    "    (p * p).sum().backward()\nout = p.grad",
    "set_grad_enabled": "torch.set_grad_enabled(True)\n"
    + LEAF
    + "out = torch.autograd.grad((x * x).sum(), x)[0]",
    "inference_mode_off": "with torch.inference_mode(False):\n    "
    + LEAF
    + "    out = (x * x).sum().grad_fn(torch.tensor(1.0))",
    "grad_fn_call": LEAF + "out = (x * x).sum().grad_fn(torch.tensor(1.0))",
    "forward_ad": "import torch.autograd.forward_ad as fwAD\nwith fwAD.dual_level():\n"
    "    d = fwAD.make_dual(torch.ones(3), torch.ones(3))\n"
    "    out = fwAD.unpack_dual(d * d).tangent",
    "make_dual_directly": "d = torch._make_dual(torch.ones(3), torch.ones(3), level=0)\n"
    "out = torch._unpack_dual(d * 2, level=0).tangent",
    "func_grad_by_getattr": "f = getattr(torch, 'fu' + 'nc')\n"
    "out = f.grad(lambda t: (t * t).sum())(torch.ones(3))",
    "func_vjp": "import torch.func\nout = torch.func.vjp(lambda t: t * t, torch.ones(3))[1]"
    "(torch.ones(3))[0]",
    "func_jvp": "import torch.func\n"
    "out = torch.func.jvp(lambda t: t * t, (torch.ones(3),), (torch.ones(3),))[1]",
    "functional_jacobian": "out = torch.autograd.functional.jacobian(lambda t: t * t, "
    "torch.ones(3)).diagonal()",
    "sys_modules_split_names": "import sys\nm = sys.modules['tor' + 'ch._C']\n"
    "getattr(m, '_set_' + 'grad_enabled')(True)\n"
    + LEAF
    + "out = torch.autograd.grad((x * x).sum(), x)[0]",
    "new_thread": "import threading\nres = {}\ndef go():\n    "
    + LEAF
    + "    (x * x).sum().backward()\n    res['g'] = x.grad\n"
    "t = threading.Thread(target=go)\nt.start()\nt.join()\nout = res['g']",
    "reload_torch_C": "import importlib\nm = importlib.reload(torch._C)\n"
    "m._set_grad_enabled(True)\n" + LEAF + "(x * x).sum().backward()\nout = x.grad",
    "gc_hunt": "import gc\nfound = [o for o in gc.get_objects() if getattr(o, '__name__', '') == "
    "'_set_grad_enabled' and o is not torch._C._set_grad_enabled]\nfound[0](True)\n"
    + LEAF
    + "(x * x).sum().backward()\nout = x.grad",
    "hooks": LEAF + "with torch.enable_grad():\n    y = x * x\n    y.register_hook(print)\n"
    "out = torch.ones(3)",
    "original_from_source": "import inspect\nsrc = inspect.getsource(torch.autograd.grad)\n"
    "ns = dict(vars(torch.autograd))\nexec(src, ns)\n"
    + LEAF
    + "out = ns['grad']((x * x).sum(), x)[0]",
}
HONEST = {
    "no_grad_decorator": "@torch.no_grad()\ndef f(t):\n    return t * 2\nout = f(torch.ones(3))",
    "inference_mode_on": "with torch.inference_mode():\n    out = torch.ones(3) * 2",
    "stdlib_imports": "import math, itertools, functools, random, collections\n"
    "out = torch.ones(3) * math.pi",
    "nn_init": "w = torch.empty(3)\ntorch.nn.init.normal_(w)\nout = torch.ones(3)",
}


@pytest.mark.parametrize("name", ATTACKS)
def test_no_attack_gets_a_gradient_from_autograd(sandbox, honest, name):
    outcome = sandbox.run(ATTACKS[name], ONE)
    returned = outcome.cases[0].returned.get("out") if outcome.cases else None
    assert returned is None or returned.tensor is None, outcome
    honest()


@pytest.mark.parametrize("name", HONEST)
def test_code_that_needs_no_autograd_still_runs(sandbox, name):
    outcome = sandbox.run(HONEST[name], ONE)
    assert outcome.status == "ok", outcome
    assert outcome.cases[0].error is None, outcome.cases[0].error
    assert isinstance(outcome.cases[0].returned["out"].tensor, torch.Tensor)


def test_the_layer_is_reported(sandbox):
    assert sandbox.layers()["autograd"] == "on"
