"""A spare's warm-up (worker.warm_up): a made-up job of our own, taken through a run's steps
before the run arrives. It runs no learner code; it is tested here on its made-up tensors."""

from __future__ import annotations

import os
import time

from grader.sandbox import worker
from grader.sandbox.protocol import FrameReader


def test_the_warm_up_takes_every_step_and_writes_one_frame():
    r, w = os.pipe()
    try:
        assert worker.warm_up(lambda: False, sink=w) is True
        os.close(w)
        reader = FrameReader(r)
        frame = reader.read(time.monotonic() + 5)
        assert frame.header["kind"] == "case" and frame.header["error"] is None
        assert frame.header["returned"] == {"same": {"problem": "is a bool, not a tensor"},
                                            "no": {"problem": "is not defined"}}  # fmt: skip
        assert reader.read(time.monotonic() + 5) is None
    finally:
        os.close(r)


def test_the_warm_up_stops_as_soon_as_the_run_has_arrived():
    asked = []

    def pending() -> bool:
        asked.append(1)
        return True

    assert worker.warm_up(pending, sink=-1) is False  # -1: a write would raise
    assert asked == [1]
