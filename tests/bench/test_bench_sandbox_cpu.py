"""bench/bench_sandbox_cpu.py measures a window in which no zygote starts."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from grader.sandbox import Sandbox

from .scripts import import_script


@pytest.fixture
def bench(monkeypatch):
    """Import bench/bench_sandbox_cpu.py (a script beside the modules it imports by name)."""
    return import_script("bench_sandbox_cpu", monkeypatch)


def test_the_window_opens_once_every_zygote_takes_runs(bench):
    sandbox = Sandbox()
    try:
        assert sandbox.load().held >= 1  # the second zygote waits for the first to be ready
        bench.settled(sandbox)
        load = sandbox.load()
        assert load.held == 0 and load.alive == load.slots, load
    finally:
        sandbox.close()


def test_a_baseline_without_held_zygotes_is_not_waited_for(bench):
    asked = []
    before = SimpleNamespace(load=lambda: asked.append(1) or SimpleNamespace(slots=2, busy=0))
    bench.settled(before, within=30.0)  # a load with no `held` field: nothing to wait for
    assert len(asked) == 1


def test_every_zygote_has_run_twice_before_the_window(bench):
    import data
    from grader import Grader

    sandbox = Sandbox()
    try:
        grader = Grader(data.default_dataset(), sandbox=sandbox)
        jobs = [(e, grader.catalog.get(e).solution()) for e in bench.RIGHT[:2]]
        bench.warm(grader, sandbox, jobs)
        assert [z.runs >= 2 for z in sandbox._zygotes] == [True, True], "each zygote's first runs"
    finally:
        sandbox.close()
