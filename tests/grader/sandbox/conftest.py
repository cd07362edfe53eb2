"""Fixtures for the sandbox tests: one shared sandbox with small limits, and a run helper."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import torch

from grader.sandbox import Case, Limits, Sandbox

LIMITS = Limits(
    cpu_seconds=1,
    wall_seconds=2,
    memory_bytes=512 * 1024**2,
    output_bytes=4096,
    result_bytes=1024**2,
)
# An honest run after a hostile one checks that the sandbox still works, not how fast: on a
# loaded machine (the image build and CPU burners beside it) its 2 s of wall time ran out once
# with 4 ms of CPU used, so it gets more time; the limits' own tests keep LIMITS.
HONEST_LIMITS = dataclasses.replace(LIMITS, wall_seconds=30)


@pytest.fixture(scope="session")
def sandbox():
    """Return a sandbox with two slots and small limits, shared by the whole session."""
    box = Sandbox(LIMITS, slots=2)
    yield box
    box.close()


@pytest.fixture
def run(sandbox):
    """Return a helper that runs code on one case binding x (a 3x4 float tensor) and n."""

    def run_one(code, outputs=("y",), tensors=None, values=None, limits=None):
        tensors = {"x": torch.arange(12.0).reshape(3, 4)} if tensors is None else tensors
        values = {"n": 3} if values is None else values
        return sandbox.run(code, [Case("lecture", tensors, values, tuple(outputs))], limits)

    return run_one


@pytest.fixture
def honest(run):
    """Return a check that an honest run still succeeds (used after each hostile one)."""

    def check():
        outcome = run("y = x * n", limits=HONEST_LIMITS)
        assert outcome.status == "ok", outcome
        assert torch.equal(
            outcome.cases[0].returned["y"].tensor, torch.arange(12.0).reshape(3, 4) * 3
        )

    return check


USR_LOCAL_COPY = "BACKPROP_TEST_USR_LOCAL_COPY"  # set by test_unprivileged.py for the ordinary user


@pytest.fixture
def usr_local_copy():
    """Return a readable file under /usr/local holding "secret answers" (a copy of the project or
    a progress database might live there), or None when it cannot be made.

    As root it is made here and removed after; test_unprivileged.py makes one for its user.
    """
    if given := os.environ.get(USR_LOCAL_COPY):
        yield Path(given)
        return
    if not os.access("/usr/local", os.W_OK):
        yield None
        return
    top = Path(tempfile.mkdtemp(prefix="bpn-copy-", dir="/usr/local"))
    try:
        top.chmod(0o755)  # readable by everyone, the worker's uid included
        (top / "progress.db").write_text("secret answers")
        (top / "progress.db").chmod(0o644)
        yield top / "progress.db"
    finally:
        shutil.rmtree(top)
