"""Fixtures for the sandbox tests: one shared sandbox with small limits, and a run helper."""

from __future__ import annotations

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
        outcome = run("y = x * n")
        assert outcome.status == "ok", outcome
        assert torch.equal(
            outcome.cases[0].returned["y"].tensor, torch.arange(12.0).reshape(3, 4) * 3
        )

    return check
