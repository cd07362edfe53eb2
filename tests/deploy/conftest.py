"""The image, built once per test run by `deploy/image build --all` as an operator builds it,
shared by tests/deploy/test_image.py and test_compose.py (tests/conftest.py puts every test
that uses `image` in the browser tests' group, first in it: one process runs them one after
another, never beside a browser test; the host-wide tests may run beside the build itself).
Skipped, saying why, where podman does not run."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..conftest import set_aside

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "test-output"
REUSE = "BPN_TEST_IMAGE_TAG"
BUILD_TIMEOUT = 3600  # seconds: a cold build makes the Debian base and fetches the wheels


def operator_tool(name: str):
    """Return deploy/<name>.py as a module (deploy/ is a folder of scripts)."""
    spec = importlib.util.spec_from_file_location(f"ninja_{name}", ROOT / "deploy" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def record(name: str, seconds: float) -> None:
    """Keep a measured duration in test-output/deploy-times.json (the report's figures)."""
    OUTPUT.mkdir(exist_ok=True)
    path = OUTPUT / "deploy-times.json"
    times = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**times, name: round(seconds, 1)}, indent=2))


@pytest.fixture(scope="session")
def podman():
    """Return the container tool deploy/image uses, or skip with the reason."""
    image = operator_tool("image")
    try:
        tool = image.container_tool()
    except image.ImageError as err:
        pytest.skip(str(err))
    if tool.command != "podman":
        pytest.skip("the container tests drive podman, and only docker is here")
    probe = tool.run("info", check=False, timeout=120)
    if probe.returncode != 0:
        pytest.skip(f"podman does not run here: {image.tail(probe, 3)}")
    return tool


def _no_base(podman, cache: Path) -> str | None:
    """Return why no Debian base can be had for the build (None if one can): none in podman's
    store or the cache, none to pull, and no root with debootstrap to make one."""
    image = operator_tool("image")
    if any(image.has_image(podman, base) for base in (image.LOCAL_BASE, image.REGISTRY_BASE)):
        return None
    if any(cache.glob("debian-*-minbase-*.tar")) or (
        os.geteuid() == 0 and shutil.which("debootstrap")
    ):
        return None
    if image.pulled(podman, image.REGISTRY_BASE):
        return None
    return (
        "the image needs a Debian base: none in podman's store, no registry answers, and making"
        " one needs root and debootstrap (scripts/test installs it as root)"
    )


@dataclass(frozen=True)
class Built:
    """The images of this test run: the app's tag, the compose file's IMAGE_TAG, the tool."""

    tag: str
    version: str
    podman: object
    cache: Path


@pytest.fixture(scope="session")
def image(podman):
    """Build the app's, PostgreSQL's and HAProxy's images once for this run; remove their tags
    at the end. The Debian base stays in podman's store, and its tarball and the lock's wheels
    in a cache of this user's under the system's temporary folder (the wheels' hashes are
    checked at every install), so a later run fetches nothing while the lock is unchanged.
    While working on these tests, BPN_TEST_IMAGE_TAG=T uses images built before with
    `deploy/image build --all --tag localhost/backprop-ninja:T` instead (and keeps them)."""
    cache = Path(tempfile.gettempdir()) / f"bpn-image-cache-{os.getuid()}"
    cache.mkdir(mode=0o700, exist_ok=True)
    if os.environ.get(REUSE):
        version = os.environ[REUSE]
        yield Built(f"localhost/backprop-ninja:{version}", version, podman, cache)
        return
    if reason := _no_base(podman, cache):
        pytest.skip(reason)
    version = f"test-{uuid.uuid4().hex[:8]}"
    tag = f"localhost/backprop-ninja:{version}"
    command = [str(ROOT / "deploy" / "image"), "build", "--all", "--tag", tag]
    command += ["--cache", str(cache)]
    started = time.monotonic()
    with set_aside():  # the host-wide tests may run meanwhile (tests/conftest.py)
        done = subprocess.run(
            command, cwd=ROOT, env=podman.env, capture_output=True, text=True, timeout=BUILD_TIMEOUT
        )
    record("image build --all", time.monotonic() - started)
    (OUTPUT / "image-build.log").write_text(done.stdout + done.stderr)
    assert done.returncode == 0, done.stderr[-3000:]
    try:
        yield Built(tag, version, podman, cache)
    finally:
        for name in ("backprop-ninja", "backprop-ninja-postgres", "backprop-ninja-haproxy"):
            podman.run("rmi", f"localhost/{name}:{version}", check=False, timeout=300)
