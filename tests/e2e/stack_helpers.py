"""The classroom stack of `deploy/stack up` for the browser tests: started once per test session
(tests/e2e/conftest.py's `running` fixture) exactly as an operator starts it, shared by
test_stack.py and test_class_attacks.py, and stopped with `deploy/stack down`; and what the
tests read from it (which replica serves a browser, the provider's address, a browser on the
other replica, the operator's own functions).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .e2e_helpers import OUTPUT, ROOT, free_port, open_page

STACK = ROOT / "deploy" / "stack"
REPLICA_HEADER = "x-ninja-replica"


def stack(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run `deploy/stack ARGS` as an operator would."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NINJA_", "STREAMLIT_"))}
    return subprocess.run(
        [str(STACK), *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=timeout
    )


def prove_for(folder: Path, replicas: int = 2) -> None:
    """Prove the exercises once into each replica's cache, as a finished first start would have
    (each replica proves them itself otherwise, which costs minutes on a busy machine)."""
    proofs = folder / "replica1" / "cache" / "proofs.json"
    prove = [sys.executable, "-m", "grader.proving.proofs", str(proofs)]
    subprocess.run(prove, cwd=ROOT, check=True, timeout=600)
    for i in range(2, replicas + 1):
        (folder / f"replica{i}" / "cache").mkdir(parents=True)
        shutil.copy(proofs, folder / f"replica{i}" / "cache" / "proofs.json")


def start_stack(tmp_path_factory):
    """Yield the stack's recorded state (stack.json, and its folder) once `deploy/stack up`
    says it is up."""
    if not shutil.which("haproxy") and not Path("/usr/sbin/haproxy").exists():
        pytest.skip("HAProxy is not installed (apt-get install haproxy)")
    if not list(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        pytest.skip("PostgreSQL's server is not installed (apt-get install postgresql)")
    OUTPUT.mkdir(exist_ok=True)
    folder = tmp_path_factory.mktemp("stack") / "class stack"
    prove_for(folder)
    up = stack("up", "--dir", str(folder), "--port", str(free_port()))
    (OUTPUT / "stack-up.log").write_text(up.stdout + up.stderr)
    try:
        assert up.returncode == 0, up.stderr
        state = json.loads((folder / "stack.json").read_text())
        assert f"open {state['url']}" in up.stdout and "ivy" in up.stdout
        yield {**state, "folder": str(folder)}
    finally:
        down = stack("down", "--dir", str(folder), timeout=300)
        # the cluster outlives its stack by design (as root, under /var/tmp): this one is the
        # test's own, 40-50 MB each run
        shutil.rmtree(operator_tools().postgres_home(folder), ignore_errors=True)
        assert down.returncode == 0, down.stderr
    status = stack("status", "--dir", str(folder))
    assert status.returncode == 1 and "answering" not in status.stdout.replace("silent", "")


def replica_of(page, url: str) -> str:
    """Return the replica that serves this browser (the proxy's header on a request that
    carries the browser's cookies, the affinity cookie among them)."""
    response = page.request.get(f"{url}/_stcore/health")
    return response.headers[REPLICA_HEADER]


def provider_url(state: dict) -> str:
    return f"http://127.0.0.1:{state['ports']['provider']}"


def on_other_replica(browser, state: dict, taken: str, tries: int = 8):
    """Return a page in a new browser context that the proxy sends to a replica other than
    taken (round robin: a new context's first request goes to the next replica)."""
    for _ in range(tries):
        context = browser.new_context(viewport={"width": 1400, "height": 1800})
        page = context.new_page()
        open_page(page, state["url"])
        if replica_of(page, state["url"]) != taken:
            return page
        context.close()
    raise AssertionError(f"every new browser landed on {taken}")


def operator_tools():
    """Return deploy/stack.py as a module: the functions an operator's `deploy/stack` uses to
    stop and start the stack's PostgreSQL."""
    spec = importlib.util.spec_from_file_location("ninja_stack", ROOT / "deploy" / "stack.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module
