"""Attacks that hand in the library's gradient instead of the learner's, one class per prefix.

Written against the classes of issue 32 (the reviewers' own attacks stay with them). Each one
was run on the code before the exercise language and handed in a right answer there (see
test_hostile_classes.py). They reach past the name swaps with plain Python that a deny-list
does not name: `pkgutil.resolve_name` for any object by its dotted path, dunder attributes,
numpy over an address. `K` is torch._C (the lecture's own `C` is a parameter).
"""

from __future__ import annotations

FIND = "import pkgutil\nfind = pkgutil.resolve_name\nK = find('torch:_C')\n"
# The original operator lookup, kept in the keyword defaults of the lookup swapped in for it
# (the second case of a run finds the original already put back by the first).
ORIGINAL = (
    "lookup = K._jit_get_operation\n"
    "real = lookup.__kwdefaults__['_original'] if type(lookup) is type(find) else lookup\n"
)
GRAD_ON = ORIGINAL + "real('aten::set_grad_enabled')[0](True)\n"
GRAD_OFF = "real('aten::set_grad_enabled')[0](False)\n"
# Thread-local exclusion of the Python dispatch key: the dispatch audit no longer sees anything.
BLIND = "K._dispatch_tls_set_dispatch_key_excluded(K.DispatchKey.Python, True)\n"
SEE = "K._dispatch_tls_set_dispatch_key_excluded(K.DispatchKey.Python, False)\n"
# sympy (which torch._decomp reaches) imports ctypes, removed from the worker: a stub stands in.
STUB = (
    "mods = find('sys:modules')\n"
    "stub = type(pkgutil)('ctypes')\nstub.c_long = int\nstub.sizeof = lambda t: 8\n"
    "mods.setdefault('ctypes', stub)\n"
)
NODE = "find('torch:Tensor.grad_fn').__get__(out)"
RUN_BACKWARD = "run = find('torch.autograd.variable:Variable._execution_engine.run_backward')\n"
# Raw memory through numpy and __array_interface__: the builtin torch.is_grad_enabled is made to
# call the grad-mode switch (its method table is next door), then to answer "off" while grad
# mode is on, so that the dispatch audit, which asks it, sees nothing wrong.
RAW = """\
import numpy
class Raw:
    def __init__(self, address, size):
        self.__array_interface__ = {
            'data': (address, False), 'shape': (size,), 'typestr': '|u1', 'version': 3}
def word(address):
    return int.from_bytes(bytes(numpy.asarray(Raw(address, 8))), 'little')
def put(address, value):
    numpy.asarray(Raw(address, 8))[:] = numpy.frombuffer(value.to_bytes(8, 'little'), numpy.uint8)
def text(address):
    return bytes(numpy.asarray(Raw(address, 40))).split(bytes(1))[0]
switch = torch.is_grad_enabled
own_def, own_call = word(id(switch) + 16), word(id(switch) + 48)
defs = {}
for k in range(-120, 120):
    name = word(own_def + 32 * k)
    if 4096 < name < 2 ** 47:
        defs[text(name)] = own_def + 32 * k
def forge(on):
    put(id(switch) + 16, defs[b'_set_grad_enabled'])
    put(id(switch) + 48, 0)
    switch(on)
    put(id(switch) + 48, own_call)
    put(id(switch) + 16, defs[b'is_inference_mode_enabled'] if on else own_def)
"""
DH_BY_NODE = (
    "leaf = torch.zeros_like(h, requires_grad=True)\nout = (leaf + h) @ W2\n"
    f"dh = {NODE}(dlogits)[0].detach()\n"
)
TANH_BACKWARD = (
    "'graph(%a : Tensor, %b : Tensor):\\n"
    "  %c : Tensor = aten::tanh_backward(%a, %b)\\n  return (%c)'"
)
DECOMP = FIND + STUB + "from torch._decomp import decompositions as D\n"
NLL = "D.nll_loss_backward(torch.tensor(1.0), lp, Yb, None, 1, -100, torch.tensor(float(n)))"

# (exercise, code) by "class/name"; each one's answer is autograd's or the library's own.
ATTACKS = {
    "1-originals/kwdefaults-grad-switch": ("dh", FIND + GRAD_ON + BLIND + DH_BY_NODE + SEE
        + GRAD_OFF),
    "1-originals/kwdefaults-grad-switch-engine": ("dW2", FIND + GRAD_ON + BLIND + RUN_BACKWARD
        + "leaf = torch.zeros_like(W2, requires_grad=True)\nout = h @ (leaf + W2) + b2\n"
        "dW2 = run((out,), (dlogits,), False, False, (leaf,), False, False)[0]\n" + SEE + GRAD_OFF),
    "2-exits/tls-exclusion-boxed-call": ("dhpreact", FIND + BLIND
        + "op = K._dispatch_find_schema_or_throw('aten::tanh_backward', '')\n"
        "dhpreact = K._dispatch_call_boxed(op, dh, h)\n" + SEE),
    "2-exits/torchscript-from-ir": ("dhpreact", FIND + BLIND
        + f"g = K.parse_ir({TANH_BACKWARD})\n"
        "dhpreact = K._create_function_from_graph('f', g)(dh, h)\n" + SEE),
    "2-exits/engine-run-backward": ("dh", FIND + GRAD_ON + BLIND + RUN_BACKWARD
        + "leaf = torch.zeros_like(h, requires_grad=True)\nout = (leaf + h) @ W2 + b2\n"
        "dh = run((out,), (dlogits,), False, False, (leaf,), False, False)[0]\n" + SEE + GRAD_OFF),
    "2-exits/node-called": ("dW2", FIND + GRAD_ON + BLIND
        + "leaf = torch.zeros_like(W2, requires_grad=True)\nout = h @ (leaf + W2)\n"
        f"dW2 = {NODE}(dlogits)[1].detach()\n" + SEE + GRAD_OFF),
    "3-audit/dispatch-method-replaced": ("dhpreact", FIND + ORIGINAL
        + "A = find('grader.sandbox.audit:Audit')\nkeep = A.__torch_dispatch__\n"
        "A.__torch_dispatch__ = lambda self, func, types, args=(), kwargs=None: "
        "func(*args, **(kwargs or {}))\nK._jit_get_operation = real\n"
        "dhpreact = torch.ops.aten.tanh_backward(dh, h)\n"
        "A.__torch_dispatch__ = keep\nK._jit_get_operation = lookup\n"),
    "3-audit/verdict-cache-planted": ("dhpreact", FIND + ORIGINAL
        + "K._jit_get_operation = real\nop = torch.ops.aten.tanh_backward.default\n"
        "find('grader.sandbox.audit:_verdict').__defaults__[0][op] = False\n"
        "dhpreact = op(dh, h)\nK._jit_get_operation = lookup\n"),
    "3-audit/refused-operators-put-back": ("dlogits_fused", FIND + ORIGINAL
        + "K._jit_get_operation = real\n"
        "cache = find('grader.sandbox.audit:_verdict').__defaults__[0]\n"
        "nll = torch.ops.aten.nll_loss_backward.default\n"
        "lsm = torch.ops.aten._log_softmax_backward_data.default\n"
        "cache[nll] = cache[lsm] = False\nlp = torch.log_softmax(logits, 1)\n"
        "g = nll(torch.tensor(1.0), lp, Yb, None, 1, -100, torch.tensor(float(n)))\n"
        "dlogits = lsm(g, lp, 1, lp.dtype)\nK._jit_get_operation = lookup\n"),
    "4-library/decomposed-tanh": ("dhpreact", DECOMP + "dhpreact = D.tanh_backward(dh, h)\n"),
    "4-library/decomposed-cross-entropy": ("dlogits_fused", DECOMP
        + f"lp = torch.log_softmax(logits, 1)\ng = {NLL}\n"
        "dlogits = D._log_softmax_backward_data(g, lp, 1, lp.dtype)\n"),
    "4-library/decomposed-batchnorm": ("dhprebn_fused", DECOMP
        + "c = (n / (n - 1)) ** 0.5\n"
        "dhprebn = D.native_batch_norm_backward(dhpreact, hprebn, bngain.view(-1), None, None, "
        "hprebn.mean(0), bnvar_inv.view(-1) * c, True, 1e-5, [True, False, False])[0] / c\n"),
    "4-library/sympy-derivative": ("dhpreact", FIND + STUB
        + "import sympy\nt = sympy.Symbol('t')\n"
        "f = sympy.lambdify(t, sympy.diff(sympy.tanh(t), t), 'math')\n"
        "dhpreact = dh.clone()\n"
        "for i in range(dh.shape[0]):\n    for j in range(dh.shape[1]):\n"
        "        dhpreact[i, j] = f(float(hpreact[i, j])) * dh[i, j]\n"),
    "5-memory/forged-grad-switch": ("dh", RAW + "forge(True)\n" + FIND + DH_BY_NODE
        + "forge(False)\n"),
    "5-memory/forged-grad-switch-engine": ("dW2", RAW + "forge(True)\n" + FIND + RUN_BACKWARD
        + "leaf = torch.zeros_like(W2, requires_grad=True)\nout = h @ (leaf + W2) + b2\n"
        "dW2 = run((out,), (dlogits,), False, False, (leaf,), False, False)[0]\nforge(False)\n"),
}  # fmt: skip

# The whole pass: the lecture's forward pass again with autograd, and all 26 gradients at once.
PARAMS = "(C, W1, b1, W2, b2, bngain, bnbias)"
LEAVES = (
    f"leaves = [torch.zeros_like(t, requires_grad=True) for t in {PARAMS}]\n"
    f"C_, W1_, b1_, W2_, b2_, bngain_, bnbias_ = [t + z for t, z in zip({PARAMS}, leaves)]\n"
)
FORWARD = """\
emb_ = C_[Xb]
embcat_ = emb_.view(emb_.shape[0], -1)
hprebn_ = embcat_ @ W1_ + b1_
bnmeani_ = 1/n*hprebn_.sum(0, keepdim=True)
bndiff_ = hprebn_ - bnmeani_
bndiff2_ = bndiff_**2
bnvar_ = 1/(n-1)*(bndiff2_).sum(0, keepdim=True)
bnvar_inv_ = (bnvar_ + 1e-5)**-0.5
bnraw_ = bndiff_ * bnvar_inv_
hpreact_ = bngain_ * bnraw_ + bnbias_
h_ = torch.tanh(hpreact_)
logits_ = h_ @ W2_ + b2_
logit_maxes_ = logits_.max(1, keepdim=True).values
norm_logits_ = logits_ - logit_maxes_
counts_ = norm_logits_.exp()
counts_sum_ = counts_.sum(1, keepdims=True)
counts_sum_inv_ = counts_sum_**-1
probs_ = counts_ * counts_sum_inv_
logprobs_ = probs_.log()
loss_ = -logprobs_[range(n), Yb].mean()
"""
NAMES = (
    "logprobs", "probs", "counts_sum_inv", "counts_sum", "counts", "norm_logits", "logit_maxes",
    "logits", "h", "W2", "b2", "hpreact", "bngain", "bnbias", "bnraw", "bnvar_inv", "bnvar",
    "bndiff2", "bndiff", "bnmeani", "hprebn", "embcat", "W1", "b1", "emb", "C",
)  # fmt: skip
ALL_26 = (
    RUN_BACKWARD
    + f"wrt = ({', '.join(n + '_' for n in NAMES)})\n"
    + "got = run((loss_,), (torch.ones(()),), False, False, wrt, False, False)\n"
    + f"{', '.join('d' + n for n in NAMES)} = [g.detach() for g in got]\n"
)
WHOLE_PASS = {
    "1-originals": FIND + GRAD_ON + BLIND + LEAVES + FORWARD + ALL_26 + SEE + GRAD_OFF,
    "5-memory": RAW
    + "forge(True)\n"
    + FIND
    + BLIND
    + LEAVES
    + FORWARD
    + ALL_26
    + SEE
    + "forge(False)\n",
}
# Exercise 4's section: the training step's forward again with autograd, its seven gradients.
SECTION = (
    FIND + GRAD_ON + BLIND + LEAVES + RUN_BACKWARD
    + "emb_ = C_[Xb]\nhprebn_ = emb_.view(emb_.shape[0], -1) @ W1_ + b1_\n"
    "bnvar_inv_ = (hprebn_.var(0, keepdim=True, unbiased=True) + 1e-5) ** -0.5\n"
    "hpreact_ = bngain_ * (hprebn_ - hprebn_.mean(0, keepdim=True)) * bnvar_inv_ + bnbias_\n"
    "loss_ = F.cross_entropy(torch.tanh(hpreact_) @ W2_ + b2_, Yb)\n"
    "got = run((loss_,), (torch.ones(()),), False, False, tuple(leaves), False, False)\n"
    "dC, dW1, db1, dW2, db2, dbngain, dbnbias = [g.detach() for g in got]\n" + SEE + GRAD_OFF
)  # fmt: skip
