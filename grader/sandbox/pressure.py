"""Whether the machine has CPU to spare: a zygote's next spare warms up only then.

A warmed spare (worker.warm_up: a made-up job run before its run arrives) saves the run about
4 ms of page faults on its critical path, and costs the spare about 10 ms of CPU. One learner
alone feels the first; a loaded class waits for the second (bench/README.md, issue 39). The
grading process reads the machine's CPU pressure before each run and tells the zygote whether
the spare it forks after that run may warm up. It reads it here, outside the zygote: inside the
sandbox's namespaces /proc may differ.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

PRESSURE = Path("/proc/pressure/cpu")  # Linux PSI (4.20+, where the kernel has it on)
# Above this share of the last 10 s during which some task waited for a CPU ("some avg10", in
# percent), spares stay cold (bench/README.md, 2026-12-07, issue 39: why this figure).
MOST_WAITED = 10.0
# Without PSI: above this 1-minute load average per CPU, spares stay cold.
MOST_LOAD = 0.5
CPUS = os.cpu_count() or 1  # asked once: it reads /sys each time


def spare_cpu() -> bool:
    """Return whether the machine has CPU to spare now, from PSI or else the load average."""
    return decide(_read(PRESSURE), lambda: os.getloadavg()[0] / CPUS)


def decide(pressure: str | None, load: Callable[[], float]) -> bool:
    """Return whether a spare may warm up, given the text of /proc/pressure/cpu (None when
    unreadable) and, for when it has no "some avg10" figure, the load average per CPU (asked
    only then).

    >>> decide("some avg10=2.50 avg60=1.00 avg300=0.50 total=100", lambda: 4.5)
    True
    """
    waited = some_avg10(pressure)
    if waited is None:
        return load() < MOST_LOAD
    return waited < MOST_WAITED


def _read(path: Path) -> str | None:
    """Return a small /proc file's text, or None if it cannot be read (one read: a grading's
    critical path pays for it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, 4096).decode("ascii", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def some_avg10(pressure: str | None) -> float | None:
    """Return the "some avg10" figure of a PSI file's text, or None if it has none."""
    for line in (pressure or "").splitlines():
        kind, _, fields = line.partition(" ")
        if kind == "some":
            figures = dict(field.partition("=")[::2] for field in fields.split())
            try:
                return float(figures["avg10"])
            except (KeyError, ValueError):
                return None
    return None
