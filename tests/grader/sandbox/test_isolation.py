"""Which real paths the zygote binds into its new root, and which it leaves out."""

from __future__ import annotations

import os
import sys

from grader.sandbox import MissingLayers, Sandbox, warmup
from grader.sandbox.client import ROOT
from grader.sandbox.isolation import kept_paths


def test_python_the_venv_and_the_sandbox_are_kept():
    keeps = kept_paths(str(ROOT))
    # The interpreter's standard library (its base prefix itself is not kept when it is a
    # broad directory, as /usr is for Debian's Python: its sys.path entries are)
    assert any(os.path.realpath(os.path.dirname(os.__file__)).startswith(k) for k in keeps)
    assert any(os.path.realpath(sys.prefix).startswith(k) for k in keeps)
    assert os.path.realpath(ROOT / "grader" / "sandbox") in keeps


def test_nothing_that_holds_the_project_or_its_secrets_is_kept():
    root = str(ROOT.resolve())
    for keep in kept_paths(root):
        assert not root.startswith(keep + "/") and keep != root
        assert not keep.startswith(root + "/solutions") and not keep.startswith(root + "/var")
    assert not any(k in ("/", "/home", "/root", "/tmp", "/etc") for k in kept_paths(root))


def test_no_broad_system_directory_is_kept_whole():
    keeps = kept_paths(str(ROOT))
    assert not [k for k in keeps if k in ("/usr", "/usr/local", "/opt", "/var")], keeps
    copy = "/usr/local/src/backprop-ninja/var/progress.db"  # another copy, or a progress DB
    assert not [k for k in keeps if copy.startswith(k.rstrip("/") + "/")], keeps


def test_no_kept_path_is_inside_another():
    keeps = kept_paths(str(ROOT))
    assert not any(k != o and k.startswith(o + "/") for k in keeps for o in keeps)


def test_missing_layers_name_each_layer_that_is_off_and_why(sandbox):
    layers = sandbox.layers()
    lacking = sandbox.missing_layers()
    assert set(lacking) == {name for name, state in layers.items() if state != "on"}
    assert all(why and not why.startswith("unavailable") for why in lacking.values())
    if os.geteuid() == 0:
        assert lacking == {}, lacking


def test_requiring_every_layer_starts_only_when_all_are_on(sandbox):
    lacking = sandbox.missing_layers()
    try:
        strict = Sandbox(slots=1, require_all_layers=True)
    except MissingLayers as refusal:
        assert refusal.missing == lacking and lacking
        assert all(f"- {name}: {why}" in str(refusal) for name, why in lacking.items())
    else:
        strict.close()
        assert lacking == {}


RUN_THROUGH_LINK = """
from grader.sandbox import Case, Limits, Sandbox
box = Sandbox(Limits(), slots=1)
out = box.run("import torch\\ny = torch.ones(2) * 3", [Case("c", {}, {}, ("y",))])
print(out.status, out.cases[0].returned["y"].tensor.tolist() if out.cases else out.message)
box.close()
"""


def test_an_interpreter_reached_through_a_symlink_still_works_in_the_worker(tmp_path):
    """A venv known by a symlinked path (a shared venv, a linked checkout): the worker's new
    root keeps the real directories and the link, so its imports resolve."""
    import subprocess

    link = tmp_path / "linked-prefix"
    link.symlink_to(os.path.realpath(sys.prefix))
    python = link / "bin" / os.path.basename(sys.executable)
    if not python.exists():
        python = link / "bin" / "python3"
    done = subprocess.run(
        [str(python), "-c", RUN_THROUGH_LINK, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok [3.0, 3.0]", done.stderr[-2000:]


WITHOUT_USERNS = """
import ctypes, importlib.util, os, sys
spec = importlib.util.spec_from_file_location("iso", sys.argv[1])
iso = importlib.util.module_from_spec(spec)
spec.loader.exec_module(iso)
def refuse():
    raise OSError(1, "refused by the test")
iso.enter_userns, os.geteuid = refuse, lambda: 1000
print(iso.isolate(sys.argv[2])["network"])
print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))
"""


def test_the_zygote_is_not_dumpable_even_without_a_user_namespace():
    import subprocess

    script = str(ROOT / "grader" / "sandbox" / "isolation.py")
    argv = [sys.executable, "-c", WITHOUT_USERNS, script, str(ROOT)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    network, dumpable = done.stdout.splitlines()
    assert network.startswith("unavailable: no user namespace (refused by the test)")
    assert dumpable == "0", done.stderr[-2000:]


def test_huge_pages_keep_a_forked_childs_writes_its_own():
    # The zygote backs its memory with huge pages before forking workers (warmup.huge_pages):
    # a worker's write must still land in its own copy, never in the zygote's nor the next's.
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            kept = bytearray(b"z" * (8 * 1024**2))
            assert warmup.huge_pages() >= 0
            for _ in range(2):
                child = os.fork()
                if child == 0:
                    kept[::4096] = b"w" * len(kept[::4096])
                    os._exit(0 if kept[4096:4097] == b"w" else 1)
                assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
            code = 0 if kept == b"z" * len(kept) else 2
        finally:
            os.write(write, bytes([code]))
            os._exit(code)
    os.close(write)
    assert os.read(read, 1) == b"\0"
    os.close(read)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
