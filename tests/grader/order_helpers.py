"""Ordering a test's threads by events, never by a clock."""

from __future__ import annotations


def after_launch(zygote, action) -> None:
    """Make a zygote call `action()` once, right after it has been asked to start a run.

    From that moment the run holds its slot until it ends, so a second run is busy, a killed
    zygote dies mid-run and a stop request meets a running worker: the order is certain on a
    machine of any speed.
    """
    launch = zygote._launch

    def launched(limits):
        ends = launch(limits)
        zygote._launch = launch
        action()
        return ends

    zygote._launch = launched
