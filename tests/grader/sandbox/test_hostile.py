"""Escapes that must fail: processes, network, signals, files, environment, the result pipe."""

from __future__ import annotations

import os

import pytest

from grader.sandbox.client import ROOT

SPAWNS = {
    "system": "torch.os.system('echo hi > marker')",
    "subprocess": "import subprocess\nsubprocess.run(['sh', '-c', 'echo hi > marker'])",
    "fork": "import os\nif os.fork() == 0:\n    open('marker', 'w').close()",
    "exec": "import os\nos.execv('/bin/sh', ['sh', '-c', 'echo hi > marker'])",
    "pty": "import pty\npty.spawn(['sh', '-c', 'echo hi > marker'])",
}


@pytest.mark.parametrize("how", SPAWNS)
def test_starting_a_process_is_forbidden(run, honest, how):
    outcome = run(SPAWNS[how])
    expected = "ok" if how == "system" else "forbidden"
    assert outcome.status == expected, outcome
    honest()


@pytest.mark.parametrize("how", SPAWNS)
def test_starting_a_process_has_no_side_effect(run, how):
    indented = "\n".join("    " + line for line in SPAWNS[how].splitlines())
    code = (
        f"try:\n{indented}\nexcept OSError:\n    pass\nimport os\ny = x * os.path.exists('marker')"
    )
    outcome = run(code)
    assert outcome.status == "ok"
    assert not outcome.cases[0].returned["y"].tensor.any()


@pytest.mark.parametrize(
    "code",
    [
        "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)",
        "import socket\nsocket.socket(socket.AF_UNIX)",
        "import os\nos.kill(os.getppid(), 9)",
        "import os\nos.kill(1, 0)",
        "import os\nos.kill(-1, 9)",
    ],
)
def test_network_and_signals_are_forbidden(run, honest, code):
    assert run(code).status == "forbidden"
    honest()


def test_names_do_not_resolve(run):
    code = "import urllib.request\nurllib.request.urlopen('http://example.com', timeout=1)"
    error = run(code).cases[0].error
    assert error.type == "URLError"


def test_solutions_and_the_project_are_not_there(run):
    assert any((ROOT / "solutions").iterdir())
    code = (
        "import os\n"
        "def ls(p):\n"
        "    try:\n"
        "        return os.listdir(p)\n"
        "    except OSError as e:\n"
        "        return type(e).__name__\n"
        f"print(ls({str(ROOT / 'solutions')!r}), ls({str(ROOT)!r}), ls({str(ROOT / '.git')!r}))"
    )
    stdout = run(code).cases[0].stdout
    assert stdout.startswith("FileNotFoundError")
    assert "exercises" not in stdout and "data" not in stdout and "pyproject" not in stdout


def test_environment_is_empty(run, monkeypatch):
    os.environ["BPN_TEST_SECRET"] = "hunter2"
    try:
        code = (
            "import os\nprint(dict(os.environ))\n"
            "try:\n    print(open('/proc/self/environ').read())\n"
            "except OSError as e:\n    print(type(e).__name__)\n"
            "try:\n    print(open('/proc/%d/environ' % os.getppid()).read())\n"
            "except OSError as e:\n    print(type(e).__name__)\n"
        )
        stdout = run(code).cases[0].stdout
    finally:
        del os.environ["BPN_TEST_SECRET"]
    assert stdout.startswith("{}\n") and "hunter2" not in stdout


def test_worker_is_unprivileged_in_an_empty_directory(run, sandbox):
    layers = sandbox.layers()
    code = "import os\nprint(os.getuid(), os.listdir('.'), open('f', 'w').write('ok'))"
    uid, listing, written = run(code).cases[0].stdout.split()
    assert listing == "[]" and written == "2"
    if layers.get("uid") == "on":
        assert int(uid) > 65535


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("import os\nos._exit(0)", "exited"),
        ("import sys\nsys.exit(3)", "exited"),
        ("exit()", "exited"),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)", "crashed"),
        ("import ctypes\nctypes.string_at(0)", "crashed"),
        ("import os\nos.close(3)\ny = x", "no_result"),
        ("import os\nos.write(3, b'garbage\\n')\ny = x", "no_result"),
        ('import os\nos.write(3, b\'{"kind": "done", "blob_sizes": []}\\n\')', "no_result"),
        ('import os\nos.write(3, b\'{"kind": "case", "blob_sizes": [99999999]}\\n\')', "no_result"),
    ],
)
def test_ending_or_corrupting_the_worker_is_reported(run, honest, code, status):
    outcome = run(code)
    assert outcome.status == status, outcome
    assert outcome.message
    honest()
