"""The checker: the first construct outside the exercise language, with its line and kind; every
honest answer the project holds passes it."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

from grader.language import LANGUAGE, widen

from ..fixtures import lecture_notebook as lecture

ROOT = Path(__file__).resolve().parents[3]


def refusal(code: str, language=LANGUAGE):
    return language.refusal(ast.parse(code))


@pytest.mark.parametrize(
    ("code", "construct", "kind"),
    [
        ("dh = torch.ops.aten.tanh_backward(g, h)", "torch.ops", "attribute"),
        ("loss.backward()", ".backward", "autograd"),
        ("d = W1.grad", ".grad", "autograd"),
        ("x = torch.autograd.grad(loss, W1)", "torch.autograd", "autograd"),
        ("y = x.grad_fn(g)", ".grad_fn", "autograd"),
        ("w = torch.zeros(3, requires_grad=True)", "requires_grad=", "autograd"),
        ("with torch.enable_grad():\n    y = x * 2", "with", "syntax"),
        ("import torch.func", "import torch.func", "import"),
        ("from torch._decomp import decompositions", "from torch._decomp import decompositions",
         "import"),
        ("import sympy", "import sympy", "import"),
        ("import pkgutil", "import pkgutil", "import"),
        ("e = torch._C._set_grad_enabled", "torch._C", "private"),
        ("d = f.__kwdefaults__", ".__kwdefaults__", "private"),
        ("A.__torch_dispatch__ = None", ".__torch_dispatch__", "private"),
        ("c = f.__closure__[0].cell_contents", ".__closure__", "private"),
        ("x = _secret", "_secret", "private"),
        ("b = getattr(loss, 'backward')", "getattr", "dynamic"),
        ("g = eval('1')", "eval", "dynamic"),
        ("s = '{0.x}'.format(t)", ".format", "dynamic"),
        ("t = type(x)", "type", "dynamic"),
        ("f = open('/etc/passwd')", "open", "dynamic"),
        ("g = globals()", "globals", "dynamic"),
        ("a = x.numpy()", ".numpy", "attribute"),
        ("p = x.data_ptr()", ".data_ptr", "attribute"),
        ("s = x.untyped_storage()", ".untyped_storage", "attribute"),
        ("y = x.as_strided((2,), (1,))", ".as_strided", "attribute"),
        ("f = (a for a in x).gi_frame", ".gi_frame", "attribute"),
        ("m = torch.nn.Parameter(x)", "torch.nn", "attribute"),
        ("torch.allclose = lambda *a: True", "torch.allclose =", "syntax"),
        ("x.data += 1", ".data", "attribute"),
        ("class T(torch.Tensor):\n    pass", "class", "syntax"),
        ("try:\n    y = 1\nexcept Exception:\n    y = 2", "try", "syntax"),
        ("raise ValueError", "raise", "syntax"),
        ("@torch.no_grad()\ndef f(t):\n    return t", "@torch.no_grad()", "syntax"),
        ("def f():\n    global x\n    x = 1", "global", "syntax"),
        ("id = 3", "id", "name"),
        ("m = x.masked_fill(mask, 0.0)", ".masked_fill", "attribute"),
    ],
)  # fmt: skip
def test_the_first_construct_outside_the_language_is_named(code, construct, kind):
    found = refusal(code)
    assert found is not None, code
    assert (found.construct, found.kind) == (construct, kind), found


def test_the_first_in_reading_order_is_named_with_its_line():
    found = refusal("a = x.sum()\nb = torch.jit.script(f)\nc = _y\n")
    assert (found.construct, found.line, found.column) == ("torch.jit", 2, 4)


def test_a_misspelt_name_gets_the_nearest_allowed_ones():
    assert "softmax" in refusal("p = F.sofmax(x, 1)").nearest
    assert "sum" in refusal("s = x.summ(0)").nearest


@pytest.mark.parametrize(
    "code",
    [
        "import torch\nimport torch.nn.functional as F\ny = F.softmax(x, 1)",
        "from torch.nn import functional as F\nimport math",
        "with torch.no_grad():\n    y = torch.nn.functional.softmax(x, 1)",
        "for _ in range(3):\n    y = x * 2",
        "grad = 2 * x\nbackward = grad + 1\nfunc = lambda t: t * 2",
        "def f(t, k=2):\n    return t ** k\ny = f(x)",
        "y = [r.sum() for r in x]\nz = {i: v for i, v in enumerate(y)}\nprint(f'{z[0]:.3f}', z)",
        "s = 'torch.autograd.grad and backward are only words here'  # .backward()",
        "i = 0\nwhile i < 3:\n    i += 1\nassert i == 3\ndel i",
        "cmp('dh', dh, h)\nprint(x.shape, x.dtype, x.T.contiguous().view(-1)[:3])",
    ],
)
def test_plain_code_passes(code):
    assert refusal(code) is None


def test_a_course_may_add_a_declared_name():
    code = "datt = dscores.masked_fill(future, 0.0)"
    assert refusal(code) is not None and refusal(code, widen(("masked_fill",))) is None


def test_the_deepest_tree_python_parses_is_walked_without_recursion():
    assert refusal("y = " + " + ".join(["x"] * 2_000) + " + _z").construct == "_z"


def _honest_answers() -> list[tuple[str, str]]:
    """Return every honest answer the project holds, right or wrong: reference answers, starters,
    listed mistakes, the banks and the lecture notebook's cells (the why cards' other forms are
    graded by test_explain.py, through the same check)."""
    answers = [*ROOT.glob("solutions/**/*.py"), *ROOT.glob("exercises/**/*.py")]
    found = [(str(p.relative_to(ROOT)), p.read_text()) for p in answers]
    for path in ROOT.glob("exercises/**/*.toml"):
        data = tomllib.loads(path.read_text())
        found += [(f"{path.name} starter", data["starter"])] if "starter" in data else []
        found += [(f"{path.name} mistake", m["code"]) for m in data.get("mistakes", [])]
    for path in (ROOT / "tests" / "grader" / "bank").glob("*.toml"):
        entries = [a for v in tomllib.loads(path.read_text()).values() for a in v]
        found += [(f"{path.name} {a['why']}", a["code"]) for a in entries if "code" in a]
    cells = (lecture.EXERCISE1, lecture.EXERCISE2, lecture.EXERCISE3, lecture.SECTION)
    found += [("lecture notebook", lecture.exercise1_cell(c)) for c in cells]
    return found


def test_every_honest_answer_is_in_the_language():
    answers = _honest_answers()
    language = widen(("masked_fill",))  # the shipped course's own addition
    refused = [(where, refusal(code, language)) for where, code in answers]
    assert len(answers) > 450 and not [r for r in refused if r[1] is not None], refused
