"""Ordering a test's threads by events, never by a clock."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

HOLD = 120  # seconds: a safety net for a test that fails, never a bound on a passing one


def after_launch(zygote, action) -> None:
    """Make a zygote call `action()` once, right after it has been asked to start a run.

    From that moment the run holds its slot until it ends, so a second run is busy, a killed
    zygote dies mid-run and a stop request meets a running worker: the order is certain on a
    machine of any speed.
    """
    launch = zygote._launch

    def launched(*args):
        ends = launch(*args)
        zygote._launch = launch
        action()
        return ends

    zygote._launch = launched


@contextmanager
def slot_held(zygote, run: Callable[[], object]) -> Iterator[None]:
    """Call `run()` in another thread and enter once its run holds the zygote's slot; the run
    keeps the slot, right after its launch, until the block ends (no sleep decides the order)."""
    started, release = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        release.wait(HOLD)

    after_launch(zygote, hold)
    thread = threading.Thread(target=run)
    thread.start()
    try:
        assert started.wait(HOLD), "the held run never started"
        yield
    finally:
        release.set()
        thread.join()
