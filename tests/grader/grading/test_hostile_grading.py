"""Hostile and broken submissions through the whole grader: a clear verdict, nothing leaked.

Most of these are refused before they run by the exercise language (the last test here); the
others run. So that the layers under the language meet every one of them, the graders of the
main test check no language at all (`Unchecked`). Each row is (category, code, failing check,
expected message) at run time. After every submission the test
also checks that no secret, solution or reference reached the result, that no file appeared
outside the worker, that the parent's torch is untouched, that the zygotes are the same
processes with nothing left behind (no process, SysV IPC object or shared memory), and that the
next honest answer is solved.
"""

from __future__ import annotations

import ast
import os
import signal
from dataclasses import replace

import pytest
import torch

from grader import Grader
from grader.language import Language
from grader.result import FAIL
from grader.sandbox import Limits, Sandbox
from grader.sandbox.verdict import message

from ..hostile_helpers import (
    ROOT,
    SECRET,
    SECRET_NAME,
    assert_nothing_leaked,
    assert_nothing_left_behind,
    host_ipc,
    snapshot,
    zygote_pids,
)

pytestmark = pytest.mark.slow  # 80 hostile runs, many until a CPU or wall limit

# A CPU-bound loop needs a quarter of a core to reach its CPU limit before the wall limit, and
# one that ignores SIGXCPU (killed at the hard limit, a second later) three eighths; the cases
# that fill memory (up to 512 MB, which costs about 0.3 s of CPU to touch) stay far below the
# CPU limit even on a machine busy with other tests.
LIMITS = Limits(cpu_seconds=2, wall_seconds=8, memory_bytes=512 * 1024**2)
# The cases that end at the CPU limit run with a wall limit far past it: on two cores shared
# with eight busy processes a loop gets a quarter of a core, and must still meet its CPU limit.
CPU_BOUND = Limits(cpu_seconds=2, wall_seconds=30, memory_bytes=512 * 1024**2)
EXERCISE = "dlogprobs"
SOLUTION = str(ROOT / "solutions" / "01_mlp" / "dlogprobs.py")
EVIL = (
    "import os\nclass E:\n    def __reduce__(self):\n        return (os.system, ('touch pwned',))\n"
)


def fixed(status: str, sig: int | None = None) -> str:
    """Return the sandbox's fixed message for a status under this suite's limits."""
    return message(status, LIMITS, sig)


def raised(kind: str, line: int) -> str:
    return f"Your code raised {kind} on line {line}:"


def case(category: str, name: str, code: str, kind: str, expected: str):
    return pytest.param(category, code, kind, expected, id=f"{category}/{name}")


NOT_DEFINED = f"`{EXERCISE}` is not defined"
AUTOGRAD = message("autograd", LIMITS)  # reached at run time (the dispatch audit, the swaps)
# Appended to a case that tries to run `touch pwned`: had the program run, the answer would be
# right and the case solved, so "not defined" proves that nothing was executed.
IF_RAN = (
    "\nimport os as os_\nif os_.path.exists('pwned'):\n"
    "    dlogprobs = torch.zeros_like(logprobs)\n"
    "    dlogprobs[range(n), Yb] = -1.0 / n\n"
)
LOOP = "while True:\n    pass\n"
HOSTILE = [
    case("cpu", "loop", LOOP, "runs", fixed("cpu_limit")),
    case("cpu", "tensor-loop", "while True:\n    (logprobs @ logprobs.T).sum()", "runs",
         fixed("cpu_limit")),
    case("sleep", "sleep", "import time\ntime.sleep(100)", "runs", fixed("wall_limit")),
    case("sleep", "select", "import select\nselect.select([], [], [])", "runs",
         fixed("wall_limit")),
    case("sleep", "pause", "import signal\nsignal.pause()", "runs", fixed("wall_limit")),
    case("signals", "ignore-sigxcpu",
         "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n" + LOOP, "runs",
         fixed("cpu_limit")),
    case("signals", "ignore-all",
         "import signal\nfor s in signal.Signals:\n    try:\n"
         "        signal.signal(s, signal.SIG_IGN)\n"
         "    except (OSError, ValueError, RuntimeError):\n        pass\n" + LOOP, "runs",
         fixed("cpu_limit")),
    case("signals", "handler-then-catch",
         "import signal\ndef h(*a):\n    raise KeyboardInterrupt\n"
         "signal.signal(signal.SIGXCPU, h)\n"
         "while True:\n    try:\n        while True:\n            pass\n"
         "    except BaseException:\n        pass\n", "runs", fixed("cpu_limit")),
    case("signals", "stop-self", "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)", "runs",
         fixed("wall_limit")),
    case("swallow", "base-exception",
         "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n"
         "        pass", "runs", fixed("cpu_limit")),
    case("swallow", "errors", "while True:\n    try:\n        1 / 0\n    except Exception:\n"
         "        pass", "runs", fixed("cpu_limit")),
    case("swallow", "finally", "try:\n    while True:\n        pass\nfinally:\n    while True:\n"
         "        pass", "runs", fixed("cpu_limit")),
    case("memory", "torch-empty", "x = torch.empty(10**12)", "runs", fixed("memory_limit")),
    case("memory", "growing-list", "a = []\nwhile True:\n    a.append(torch.empty(10**7))",
         "runs", fixed("memory_limit")),
    case("memory", "growing-tensors", "a = []\nwhile True:\n    a.append(torch.ones(10**7))",
         "runs", fixed("memory_limit")),
    case("memory", "caught", "a = []\nwhile True:\n    try:\n        a.append(bytearray(10**7))\n"
         "    except MemoryError:\n        pass", "runs", fixed("cpu_limit")),
    case("processes", "fork-bomb", "import os\nwhile True:\n    os.fork()", "runs",
         fixed("forbidden")),
    case("processes", "fork-bomb-caught", "import os\nwhile True:\n    try:\n        os.fork()\n"
         "    except OSError:\n        pass", "runs", fixed("cpu_limit")),
    case("processes", "multiprocessing",
         "import multiprocessing\nmultiprocessing.Process(target=print).start()", "runs",
         fixed("forbidden")),
    case("processes", "thread-bomb", "import threading, time\nwhile True:\n    "
         "threading.Thread(target=time.sleep, args=(100,)).start()", "runs",
         raised("RuntimeError", 3)),
    case("processes", "spinning-threads", "import threading\ndef spin():\n    while True:\n"
         "        pass\nfor _ in range(4):\n    threading.Thread(target=spin).start()\nspin()",
         "runs", raised("RuntimeError", 6)),  # one thread: a new one would have grad mode on
    case("programs", "torch-os-system", "r = torch.os.system('touch pwned')" + IF_RAN, "form",
         NOT_DEFINED),
    case("programs", "subprocess", "import subprocess\nsubprocess.run(['touch', 'pwned'])", "runs",
         fixed("forbidden")),
    case("programs", "execv", "import os\nos.execv('/bin/sh', ['sh', '-c', 'touch pwned'])",
         "runs", fixed("forbidden")),
    case("programs", "pty", "import pty\npty.spawn(['touch', 'pwned'])", "runs",
         raised("ImportError", 1)),  # termios is compiled, and no compiled module loads now
    case("programs", "ctypes-system",
         "import ctypes\nctypes.CDLL(None).system(b'touch pwned')" + IF_RAN, "runs",
         raised("ImportError", 1)),  # ctypes is removed, and no compiled module loads now
    case("programs", "cpp-extension", "import torch.utils.cpp_extension as ext\n"
         "ext.load_inline('x', 'int f() { return 1; }', functions=['f'])", "runs",
         raised("PermissionError", 1)),  # its import reaches native calls: refused
    case("reading", "solutions", f"print(open({SOLUTION!r}).read())", "runs",
         raised("FileNotFoundError", 1)),
    case("reading", "solutions-via-proc",
         "import os\nprint(open('/proc/%d/cwd/solutions/01_mlp/dlogprobs.py'"
         " % os.getppid()).read())", "runs", raised("FileNotFoundError", 2)),
    case("reading", "grader-package", "from grader.course.exercises import SOLUTIONS_DIR", "runs",
         raised("ModuleNotFoundError", 1)),
    case("reading", "etc-passwd", "print(open('/etc/passwd').read())", "runs",
         raised("FileNotFoundError", 1)),  # the new root holds only what Python needs
    case("reading", "etc-shadow", "print(open('/etc/shadow').read())", "runs",
         raised("FileNotFoundError", 1)),
    case("reading", "environment", "import os\nprint(dict(os.environ))", "form", NOT_DEFINED),
    case("reading", "own-environ", "print(open('/proc/self/environ').read())", "runs",
         raised("PermissionError", 1)),
    case("reading", "parent-environment",
         "import os\nprint(open('/proc/%d/environ' % os.getppid()).read())", "runs",
         raised("FileNotFoundError", 2)),
    case("writing", "project", f"open({str(ROOT / 'pwned')!r}, 'w').write('x')", "runs",
         raised("OSError", 1)),
    case("writing", "tmp", "open('/tmp/pwned', 'w').write('x')", "runs",
         raised("OSError", 1)),  # a read-only file system
    case("writing", "dev-shm", "open('/dev/shm/pwned', 'w').write('x')", "runs",
         raised("FileNotFoundError", 1)),
    case("writing", "fill-disk", "i = 0\nwhile True:\n    open(f'f{i}', 'wb').write(b'x' * 2**20)"
         "\n    i += 1", "runs", raised("OSError", 3)),
    case("writing", "huge-file", "open('big', 'wb').write(b'x' * 2**24)", "runs",
         raised("OSError", 1)),
    case("writing", "directory-bomb",
         "import os\nwhile True:\n    os.mkdir('d')\n    os.chdir('d')", "runs",
         raised("OSError", 3)),
    case("network", "connect", "import socket\nsocket.create_connection(('127.0.0.1', 8501))",
         "runs", fixed("forbidden")),
    case("network", "unix-socket", "import socket\nsocket.socket(socket.AF_UNIX)", "runs",
         fixed("forbidden")),
    case("network", "urllib", "import urllib.request\nurllib.request.urlopen('http://example.com')",
         "runs", raised("URLError", 2)),
    case("introspection", "subclasses",
         "w = [c for c in object.__subclasses__() if c.__name__ == '_wrap_close'][0]\n"
         "w.__init__.__globals__['system']('touch pwned')" + IF_RAN, "form", NOT_DEFINED),
    case("introspection", "subclasses-popen",
         "P = [c for c in object.__subclasses__() if c.__name__ == 'Popen'][0]\nP(['touch', 'x'])",
         "runs", fixed("forbidden")),
    case("introspection", "frames", "import sys\nfound, f = [], sys._getframe()\n"
         "while f is not None:\n    found += [v for v in list(f.f_locals.values())"
         " if isinstance(v, torch.Tensor)]\n    f = f.f_back\n"
         "dlogprobs = [t for t in found if t.shape == logprobs.shape][-1]", "lecture",
         "`dlogprobs` has wrong values"),
    case("introspection", "gc-tensors", "import gc\ndlogprobs = [o for o in gc.get_objects() if "
         "isinstance(o, torch.Tensor) and o.shape == logprobs.shape][0]", "lecture",
         "`dlogprobs` has wrong values"),
    case("introspection", "parent-memory", "import os\nopen('/proc/%d/mem' % os.getppid(), 'rb')",
         "runs", raised("FileNotFoundError", 2)),
    case("pickle", "torch-load", EVIL + "torch.save(E(), 'p.pt')\ntorch.load('p.pt')", "runs",
         raised("UnpicklingError", 6)),
    case("pickle", "torch-load-unsafe",
         EVIL + "torch.save(E(), 'p.pt')\nprint(torch.load('p.pt', weights_only=False))" + IF_RAN,
         "form", NOT_DEFINED),
    case("monkeypatch", "allclose-and-eq", "torch.allclose = lambda *a, **k: True\n"
         "torch.equal = lambda *a: True\ntorch.Tensor.__eq__ = lambda *a: True\n"
         "import builtins\nbuiltins.abs = lambda x: 0\ndlogprobs = torch.zeros_like(logprobs)",
         "lecture", "`dlogprobs` has wrong values"),
    case("subclass", "tensor-subclass", "class T(torch.Tensor):\n    pass\n"
         "dlogprobs = torch.zeros_like(logprobs).as_subclass(T)", "form",
         "`dlogprobs` is a tensor subclass T, not a plain tensor"),
    case("subclass", "torch-function", "class T(torch.Tensor):\n    @classmethod\n"
         "    def __torch_function__(cls, *a, **k):\n        return True\n"
         "dlogprobs = torch.zeros_like(logprobs).as_subclass(T)", "form", "tensor subclass T"),
    case("subclass", "numpy", "dlogprobs = logprobs.numpy()", "form", "is a ndarray, not a tensor"),
    case("mutation", "inputs", "logprobs.zero_()\nYb.zero_()\n"
         "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / n", "lecture",
         "`dlogprobs` has wrong values"),
    case("exit", "sys-exit", "import sys\nsys.exit(0)", "runs", fixed("exited")),
    case("exit", "os-exit", "dlogprobs = torch.zeros_like(logprobs)\nimport os\nos._exit(0)",
         "runs", fixed("no_result")),
    case("exit", "kill-parent", "import os\nos.kill(os.getppid() or 1, 9)", "runs",
         fixed("forbidden")),  # getppid() is 0 in the run's PID namespace
    case("exit", "killpg-parent", "import os\nos.killpg(os.getpgid(os.getppid() or 1) or 1, 9)",
         "runs", fixed("forbidden")),  # the parent and its group are unseen: try group 1
    case("exit", "kill-everyone", "import os\nos.kill(-1, 9)", "runs", fixed("forbidden")),
    case("exit", "killpg-self", "import os\nos.killpg(0, 9)", "runs",
         fixed("crashed", signal.SIGKILL)),
    case("recursion", "python", "def f():\n    f()\nf()", "runs", raised("RecursionError", 2)),
    case("recursion", "c-stack", "import sys\nsys.setrecursionlimit(10**6)\ndef f(_=None):\n"
         "    return list(map(f, [0]))\nf()", "runs", fixed("crashed", signal.SIGSEGV)),
    case("output", "print-gigabyte", "for _ in range(1000):\n    print('x' * 10**6)", "runs",
         fixed("output_limit")),
    case("output", "print-loop", "while True:\n    print('x' * 10000)", "runs",
         fixed("output_limit")),
    case("output", "raw-fds", "import os\nos.write(1, b'x' * 10**7)\nos.write(2, b'x' * 10**7)",
         "form", NOT_DEFINED),
    case("gigantic", "tensor", "dlogprobs = torch.empty(10**8)", "form",
         "`dlogprobs` is too large to return (shape (100000000,)"),
    case("gigantic", "expanded-view", "dlogprobs = torch.zeros(1).expand(10**9)", "form",
         "expected a float tensor of shape (32, 27)"),
    case("gigantic", "empty-huge-shape", "dlogprobs = torch.zeros(0, 10**12)", "form",
         "got (0, 1000000000000), expected (32, 27)"),
    case("nan", "nan", "dlogprobs = torch.full_like(logprobs, float('nan'))", "form",
         "`dlogprobs` has 864 non-finite values"),
    case("nan", "one-inf", "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[3, 4] = float('inf')",
         "form", "`dlogprobs` has 1 non-finite values (nan or inf), the first at (3, 4)"),
    case("autograd", "hidden", "ag = getattr(torch, 'dargotua'[::-1])\n"
         "dlogprobs = getattr(ag, 'darg'[::-1])(logprobs.sum(), logprobs)", "rules", AUTOGRAD),
    case("autograd", "hidden-backward", "getattr(logprobs.sum(), 'drawkcab'[::-1])()", "rules",
         AUTOGRAD),
    case("autograd", "enable-grad", "p = logprobs.clone().requires_grad_()\n"
         "with torch.enable_grad():\n    (p * 2).sum().backward()", "rules", AUTOGRAD),
    case("unreadable", "null-byte", "x = 1\ny = 2\x00", "runs",
         "syntax error on line 2, column 6: the character U+0000 cannot appear in code"),
    case("unreadable", "lone-surrogate", "x = '\udcff'", "runs",
         "syntax error on line 1, column 6: the character U+DCFF"),
    case("unreadable", "too-long", "x = 1\n" * 30_000, "runs",
         "Your code cannot be graded: it is longer than 100 kB."),
    case("unreadable", "too-nested", "x = " + "(" * 5000 + ")" * 5000, "runs",
         "syntax error on line 1, column"),
]  # fmt: skip


@pytest.fixture(scope="module")
def box():
    """Start a sandbox with small limits, with a secret in the environment it starts from."""
    yield from _started(LIMITS)


@pytest.fixture(scope="module")
def cpu_box():
    """Start a sandbox like box() whose wall limit leaves every loop time to meet its CPU limit."""
    yield from _started(CPU_BOUND)


def _started(limits: Limits):
    """Yield a started sandbox with these limits and the secret in its environment."""
    os.environ[SECRET_NAME] = SECRET
    sandbox = Sandbox(limits, slots=2)
    sandbox.layers()
    yield sandbox
    sandbox.close()
    os.environ.pop(SECRET_NAME, None)


class Unchecked(Language):
    """No exercise language: the code meets the sandbox's layers as it is."""

    def refusal(self, tree):
        return None


def unchecked(catalog):
    """Return the catalog with its course's exercise language switched off."""
    return replace(catalog, course=replace(catalog.course, language=Unchecked()))


@pytest.fixture(scope="module")
def hostile_grader(box, default_data, catalog):
    return Grader(default_data, unchecked(catalog), box)


@pytest.fixture(scope="module")
def cpu_grader(cpu_box, default_data, catalog):
    return Grader(default_data, unchecked(catalog), cpu_box)


@pytest.fixture(scope="module")
def honest(catalog) -> str:
    return catalog.get(EXERCISE).solution()


def first_failure(result):
    return next(c for c in result.checks if c.status == FAIL)


@pytest.mark.host_wide  # counts the machine's IPC objects and shared memory (tests/conftest.py)
@pytest.mark.parametrize(("category", "code", "kind", "expected"), HOSTILE)
def test_a_hostile_submission_is_refused_cleanly(
    hostile_grader, box, cpu_grader, cpu_box, honest, category, code, kind, expected
):
    if expected == fixed("cpu_limit"):
        hostile_grader, box = cpu_grader, cpu_box
    before = snapshot(hostile_grader.prepared(hostile_grader.catalog.get(EXERCISE)))
    zygotes, host = zygote_pids(box), host_ipc()
    result = hostile_grader.grade(EXERCISE, code)
    failed = first_failure(result)
    assert not result.solved
    assert failed.kind == kind and expected in failed.message, failed
    assert_nothing_leaked(result, honest, before)
    assert_nothing_left_behind(box, zygotes, wait=box.limits.wall_seconds + 5, host=host)
    assert hostile_grader.grade(EXERCISE, honest).solved, "the next honest answer is graded"


STEAL = """
import gc, sys
found = [o for o in gc.get_objects() if isinstance(o, torch.Tensor)]
frame = sys._getframe()
while frame is not None:
    for scope in (frame.f_locals, frame.f_globals):
        found += [v for v in list(scope.values()) if isinstance(v, torch.Tensor)]
    frame = frame.f_back
for module in list(sys.modules.values()):
    found += [v for v in list(vars(module).values()) if isinstance(v, torch.Tensor)]
dh = torch.stack([t.double() for t in found if t.shape == h.shape])
"""


def test_no_reference_gradient_is_there_to_steal(hostile_grader, box):
    exercise = hostile_grader.catalog.get("dh")
    prepared = hostile_grader.prepared(exercise)
    outcome = box.run(STEAL, prepared.cases)
    assert outcome.status == "ok", outcome
    for ran in outcome.cases:
        stolen = ran.returned["dh"].tensor
        expected = prepared.expected[ran.name].double()
        assert len(stolen) >= 1, "the search finds tensors of that shape (the input h)"
        assert not any(torch.allclose(t, expected, atol=1e-6) for t in stolen), ran.name
    assert not hostile_grader.grade("dh", STEAL).solved


# The cases the exercise language lets through: they run, and the test above judges them.
IN_LANGUAGE = {
    "cpu/loop", "cpu/tensor-loop", "memory/torch-empty", "memory/growing-list",
    "memory/growing-tensors", "mutation/inputs", "recursion/python", "output/print-gigabyte",
    "output/print-loop", "gigantic/tensor", "gigantic/expanded-view", "gigantic/empty-huge-shape",
    "nan/nan", "nan/one-inf", "unreadable/null-byte", "unreadable/lone-surrogate",
    "unreadable/too-long", "unreadable/too-nested",
}  # fmt: skip


@pytest.mark.parametrize(("category", "code", "kind", "expected"), HOSTILE)
def test_the_exercise_language_refuses_the_rest_before_they_run(
    catalog, default_data, request, category, code, kind, expected
):
    case_id = request.node.callspec.id
    if case_id in IN_LANGUAGE:
        tree = ast.parse(code) if "unreadable" not in case_id else None
        assert tree is None or catalog.course.language.refusal(tree) is None, case_id
        return
    result = Grader(default_data, catalog).grade(EXERCISE, code)  # refused: nothing starts
    assert not result.solved and not result.ran and result.failed_check == "rules", result
    assert result.refused_construct and result.refused_line, result
