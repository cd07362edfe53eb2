"""Escapes that must fail: processes, network, signals, files, environment, the result pipe."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.sandbox import Case, Limits
from grader.sandbox.client import ROOT

from ..hostile_helpers import assert_nothing_left_behind, host_ipc, zygote_pids
from .conftest import LIMITS
from .test_tensorwire import FORGED

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
    if how == "system":
        assert outcome.status == "ok", outcome
    elif how == "pty" and outcome.status == "ok":  # termios is not loaded, nor /dev/ptmx there
        message = outcome.cases[0].error.message
        assert "out of pty devices" in message or "no new compiled modules" in message
    else:
        assert outcome.status == "forbidden", outcome
    honest()


@pytest.mark.parametrize("how", SPAWNS)
def test_starting_a_process_has_no_side_effect(run, how):
    indented = "\n".join("    " + line for line in SPAWNS[how].splitlines())
    code = (
        f"try:\n{indented}\nexcept (OSError, ImportError):\n    pass\n"
        "import os\ny = x * os.path.exists('marker')"
    )
    outcome = run(code)
    assert outcome.status == "ok"
    assert not outcome.cases[0].returned["y"].tensor.any()


@pytest.mark.parametrize(
    "code",
    [
        "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)",
        "import socket\nsocket.socket(socket.AF_UNIX)",
        "import os\nos.kill(os.getppid() or 1, 9)",  # 0 in a PID namespace: the parent is unseen
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
        f"print(ls({str(ROOT / 'solutions')!r}), ls({str(ROOT)!r}), "
        f"ls({str(ROOT / '.git')!r}))"
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
        ("import os\nos._exit(0)", "no_result"),  # the exit code is the learner's: not trusted
        ("import sys\nsys.exit(3)", "exited"),
        ("exit()", "exited"),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)", "crashed"),
        ("import signal\nsignal.raise_signal(signal.SIGABRT)", "crashed"),
        ("import os\nos.close(3)\ny = x", "no_result"),
        ("import os\nos.write(3, b'garbage\\n')\ny = x", "malformed"),
        ('import os\nos.write(3, b\'{"kind": "done", "blob_sizes": []}\\n\')', "malformed"),
        ('import os\nos.write(3, b\'{"kind": "case", "blob_sizes": [99999999]}\\n\')', "malformed"),
    ],
)
def test_ending_or_corrupting_the_worker_is_reported(run, honest, code, status):
    outcome = run(code)
    assert outcome.status == status, outcome
    assert outcome.message
    honest()


FORGE = (
    "import os, sys\nwire = sys.modules['grader.sandbox.protocol']\n"
    "head = {{'kind': 'case', 'name': 'lecture', 'error': None, 'returned': {{}}, 'stdout': ''}}\n"
    "wire.write_frame(3, head, [{blob!r}])\nos._exit(0)"
)


@pytest.mark.parametrize(("blob", "why"), FORGED, ids=[why for _, why in FORGED])
def test_a_forged_tensor_buffer_from_the_worker_is_malformed(run, honest, blob, why):
    outcome = run(FORGE.format(blob=blob))
    assert outcome.status == "malformed", outcome
    assert why.split()[0] in outcome.log and "grader failed" not in outcome.message
    honest()


# Name the worker so that the test can look for it; with native calls gone (nativecalls.py), by
# writing its own /proc/self/comm where the worker may, else it stays unnamed and unseen here.
LINGER = (
    "import os, time\ntry:\n    open('/proc/self/comm', 'w').write('{name}')\n"
    "except OSError:\n    pass\n{act}\n"
)
LINGERERS = {
    "malformed": "os.write(3, b'garbage\\n')",
    "no_result": "os.close(3)",
}


def _named(comm: str) -> list[int]:
    """Return the pids of the processes whose command name is comm."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{entry}/comm").read_text().strip() == comm:
                found.append(int(entry))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("status", LINGERERS)
def test_a_worker_that_ends_its_stream_then_lingers_is_stopped_at_once(run, honest, status):
    name = f"bpn-{os.urandom(4).hex()}"
    code = LINGER.format(name=name, act=LINGERERS[status]) + "time.sleep(100)"
    roomy = Limits(**{**LIMITS.__dict__, "wall_seconds": 30})  # at the wall: "wall_limit"
    outcome = run(code, limits=roomy)
    assert outcome.status == status, outcome
    assert "grader failed" not in outcome.message
    assert not _named(name), "the worker still runs after its verdict"
    for _ in range(2):  # slots are handed out in turn: the second honest run uses its slot
        honest()


def test_a_thread_cannot_bring_autograd_back(run):
    code = "import threading\ndef boom():\n    1 / 0\nt = threading.Thread(target=boom)\n"
    code += "t.start()\nt.join()"
    error = run(code).cases[0].error
    assert error.type == "RuntimeError" and error.line == 5


@pytest.mark.parametrize(
    "code",
    [
        "a = []\nwhile True:\n    a.append(bytearray(10**7))",
        "import torch\nx = torch.empty(10**12)",
    ],
)
def test_running_out_of_memory_ends_the_run(sandbox, code):
    cases = [Case(name, {}, {}, ()) for name in ("first", "second", "third")]
    # Touching 512 MB costs about half a second of CPU, more on a busy machine: room to spare.
    roomy = Limits(**{**LIMITS.__dict__, "cpu_seconds": 5, "wall_seconds": 10})
    outcome = sandbox.run(code, cases, roomy)
    assert outcome.status == "memory_limit", outcome
    assert [c.name for c in outcome.cases] == ["first"]


@pytest.mark.parametrize(
    "code",
    [
        "import os\ni = 0\nwhile True:\n    os.mkdir(str(i))\n    i += 1",
        "import os\nwhile True:\n    os.mkdir('d')\n    os.chdir('d')",
        "i = 0\nwhile True:\n    open(str(i), 'wb').write(b'x' * 2**20)\n    i += 1",
    ],
)
def test_filling_the_work_dir_stops_soon_and_leaves_nothing(sandbox, run, honest, code):
    if sandbox.layers().get("filesystem") != "on":
        pytest.skip("work dirs are their own tmpfs only with the filesystem layer")
    outcome = run(code)
    assert outcome.status == "ok", outcome  # ended by the full disk, not by a limit
    assert "No space left on device" in outcome.cases[0].error.message
    assert run("import os\ny = x * len(os.listdir('.'))").cases[0].returned["y"].tensor.sum() == 0
    honest()


# Each escape by category, written so that its code sets `escaped` true only if it worked.
# The grader's pid, a file outside the project and a home are put into the code by the test.
ESCAPES = {
    "parent/mem-write": "f = open('/proc/{grader}/mem', 'r+b')\nescaped = True",
    "parent/environ": "escaped = len(open('/proc/{grader}/environ', 'rb').read()) > 0",
    "parent/visible": (
        "escaped = [p for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()]"
    ),
    "parent/kill": "os.kill({grader}, 0)\nescaped = True",
    "parent/f-setown": (
        "r, w = os.pipe()\nfcntl.fcntl(r, fcntl.F_SETOWN, {grader})\n"
        "fcntl.fcntl(r, fcntl.F_SETSIG, 9)\nescaped = True"
    ),
    "parent/fiosetown": (
        "r, w = os.pipe()\nimport struct\n"
        "fcntl.ioctl(r, 0x8901, struct.pack('i', {grader}))\nescaped = True"
    ),
    "parent/ptrace": "escaped = libc.ptrace(16, {grader}, 0, 0) == 0",
    "files/bashrc": "open('{home}/.bashrc', 'a').write('# pwned\\n')\nescaped = True",
    "files/tmp": "open('/tmp/bpn-{token}', 'w').write('x')\nescaped = True",
    "files/dev-shm": "open('/dev/shm/bpn-{token}', 'w').write('x')\nescaped = True",
    "files/var-tmp": "open('/var/tmp/bpn-{token}', 'w').write('x')\nescaped = True",
    "files/other-copy": "escaped = 'secret' in open('{outside}').read()",
    "files/usr-local-copy": "escaped = 'secret' in open('{usr_local}').read()",
    "files/grader-import": "import grader.course.exercises\nescaped = True",
    "files/solutions": "escaped = bool(os.listdir('{root}/solutions'))",
    "files/sandbox-source": "escaped = bool(open('{root}/grader/sandbox/zygote.py').read())",
    "files/progress-db": "escaped = bool(os.listdir('{root}/var'))",
    "ipc/shm-left": "escaped = libc.shmget(0, 2**20, 0o1600) >= 0",
    "ipc/shm-over-limit": (
        "ids = [libc.shmget(0, 2**30, 0o1600) for _ in range(3)]\n"
        "escaped = any(i >= 0 for i in ids)"
    ),
    "ipc/msg-queue": "escaped = libc.msgget(0, 0o1600) >= 0",
    "namespaces/new-user": "escaped = libc.unshare(0x10000000) == 0",
    "namespaces/enter-host": "escaped = libc.setns(os.open('/proc/1/ns/mnt', os.O_RDONLY), 0) == 0",
    "memory/memfd": "fd = os.memfd_create('x')\nos.write(fd, b'x' * 2**20)\nescaped = True",
    "memory/pipe-growth": "r, w = os.pipe()\nfcntl.fcntl(w, 1031, 2**20)\nescaped = True",
}
# Native calls are gone from the worker (nativecalls.py): each escape then fails at its first
# libc call, inside the try, and the syscall filter stays tested by test_seccomp.py.
PRELUDE = (
    "import os, fcntl\ntry:\n    import ctypes\n    libc = ctypes.CDLL(None, use_errno=True)\n"
    "except BaseException:\n    libc = None\nescaped = False\n"
)


def _escape_code(name: str, **where) -> str:
    body = ESCAPES[name].format(**where)
    indented = "\n".join("    " + line for line in body.splitlines())
    return f"{PRELUDE}try:\n{indented}\nexcept Exception:\n    pass\ny = x * int(bool(escaped))"


@pytest.mark.host_wide  # counts the machine's IPC objects and shared memory (tests/conftest.py)
@pytest.mark.parametrize("name", ESCAPES)
def test_each_escape_is_contained_and_leaves_nothing(
    run, honest, sandbox, tmp_path, usr_local_copy, name
):
    if "{usr_local}" in ESCAPES[name] and usr_local_copy is None:
        pytest.skip("no copy under /usr/local: it needs root, or test_unprivileged.py")
    outside = tmp_path / "another-copy" / "progress.db"
    outside.parent.mkdir()
    outside.write_text("secret answers")
    home = os.path.expanduser("~")
    bashrc = Path(home, ".bashrc")
    rc_before = bashrc.read_bytes() if bashrc.exists() else None
    token = os.urandom(4).hex()
    zygotes, host = zygote_pids(sandbox), host_ipc()
    where = {"grader": os.getpid(), "home": home, "token": token, "outside": outside}
    outcome = run(_escape_code(name, **where, root=ROOT, usr_local=usr_local_copy))
    assert outcome.status == "ok", outcome
    assert not outcome.cases[0].returned["y"].tensor.any(), f"{name} escaped"
    assert not [p for p in ("/tmp", "/dev/shm", "/var/tmp") if Path(p, f"bpn-{token}").exists()]
    assert (bashrc.read_bytes() if bashrc.exists() else None) == rc_before
    assert_nothing_left_behind(sandbox, zygotes, wait=LIMITS.wall_seconds + 5, host=host)
    honest()
