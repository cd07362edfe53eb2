"""A per-profile limit on submissions that normal typing-and-submitting never meets.

Each profile has a token bucket: it holds up to `burst` submissions and refills at `rate` per
second, so a learner may submit a few times in a row, then about once a second; only a script
or a held-down Ctrl+Enter is told to wait.

    >>> limiter = RateLimiter(burst=5, rate=1.0)
    >>> [limiter.wait(1, now=0.0) for _ in range(6)]
    [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass

BURST, RATE = 5, 1.0


@dataclass
class Bucket:
    """The tokens one profile has left, as of a moment."""

    tokens: float
    updated: float


class RateLimiter:
    """Token buckets keyed by profile; thread-safe (one limiter serves every session)."""

    def __init__(
        self, burst: int = BURST, rate: float = RATE, clock: Callable[[], float] = time.monotonic
    ):
        if burst < 1 or rate <= 0:
            raise ValueError("need a burst of at least 1 and a positive rate")
        self.burst, self.rate, self.clock = burst, rate, clock
        self._buckets: dict[Hashable, Bucket] = {}
        self._lock = threading.Lock()

    def wait(self, key: Hashable, now: float | None = None) -> float:
        """Take a token for key and return 0.0, or return the seconds until one is free."""
        now = self.clock() if now is None else now
        with self._lock:
            bucket = self._buckets.setdefault(key, Bucket(float(self.burst), now))
            elapsed = max(0.0, now - bucket.updated)
            bucket.tokens = min(float(self.burst), bucket.tokens + elapsed * self.rate)
            bucket.updated = now
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                return 0.0
            return (1.0 - bucket.tokens) / self.rate


def too_fast(wait: float) -> str:
    """Return the message for a refused submission."""
    return f"You are submitting very fast; wait {max(1, math.ceil(wait))} s."
