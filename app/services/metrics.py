"""This replica's metrics, in Prometheus's text format (`/metrics`, served by app/server.py).

One registry per server process, with the maintained client (prometheus_client): a replica is
one process, so no multiprocess mode. The app counts what it does through three calls, and the
gauges are read when Prometheus scrapes:

    >>> metrics.graded("solved", 0.012)     # a verdict recorded (app/panels/workbench.py)
    >>> metrics.signed_in()                 # a session opened by a signed-in person
    >>> metrics.failed("database")          # a page that could not reach the database
    >>> metrics.exposition()                # the text Prometheus reads

The names, their labels and what each counts: docs/operations.md, "Metrics".
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from prometheus_client import Metric

    from grader.sandbox import Load, Sandbox

T = TypeVar("T")
log = logging.getLogger("app.metrics")
CONTENT_TYPE = CONTENT_TYPE_LATEST
OUTCOMES = ("solved", "not_solved", "busy", "grader_failed")  # the grader's statuses
ERRORS = ("page", "database", "grader")
# A run's states: the local mode's (its grader's job) and the classroom's (app/training/tasks.py)
RUN_STATES = ("queued", "starting", "running", "finished", "stopped", "failed", "interrupted")
SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

disable_created_metrics()  # no `_created` series beside each counter: half the text, no use here
REGISTRY = CollectorRegistry()
for standard in (ProcessCollector, PlatformCollector, GCCollector):
    standard(registry=REGISTRY)  # the process's CPU, memory, open files; Python's version, GC
GRADINGS = Counter(
    "ninja_gradings",
    "Submissions whose verdict this replica recorded, by outcome (busy: the sandbox's queue "
    "was full and nothing was graded).",
    ["outcome"],
    registry=REGISTRY,
)
GRADING_SECONDS = Histogram(
    "ninja_grading_seconds",
    "The grader's time for an exercise or a whole pass, the sandbox's wait included.",
    buckets=SECONDS,
    registry=REGISTRY,
)
SANDBOX_WAIT = Histogram(
    "ninja_sandbox_wait_seconds",
    "How long each admitted run waited for a free sandbox slot.",
    buckets=SECONDS,
    registry=REGISTRY,
)
SIGN_INS = Counter(
    "ninja_sign_ins",
    "Sessions opened by a signed-in person (the classroom mode): a sign-in, or a page opened "
    "again in a new tab or after a reload.",
    registry=REGISTRY,
)
FAILURES = Counter(
    "ninja_errors",
    "Errors by kind: page (an exception no page caught), database (a page the database did not "
    "answer), grader (a grading the grader failed).",
    ["kind"],
    registry=REGISTRY,
)
for value in OUTCOMES:
    GRADINGS.labels(value)  # every series present from the start, at 0
for value in ERRORS:
    FAILURES.labels(value)


def graded(outcome: str, elapsed: float) -> None:
    """Count a verdict recorded (its status, or busy) and time it when the grader did (a
    gradient check of Exercise 4 is recorded untimed: elapsed 0)."""
    GRADINGS.labels(outcome).inc()
    if outcome == "grader_failed":
        FAILURES.labels("grader").inc()
    if outcome != "busy" and elapsed > 0:
        GRADING_SECONDS.observe(elapsed)


def signed_in() -> None:
    """Count a session opened by a signed-in person."""
    SIGN_INS.inc()


def failed(kind: str) -> None:
    """Count an error of a kind of ERRORS."""
    FAILURES.labels(kind).inc()


def script_failed(error: BaseException) -> None:
    """Count an exception no page caught (st.App's `on_script_error`); Streamlit shows it as
    usual (None)."""
    failed("page")


def waited(seconds: float) -> None:
    """Time a run's wait for a sandbox slot (the sandbox's watcher)."""
    SANDBOX_WAIT.observe(seconds)


_watched: set[int] = set()


def watch(sandbox: Sandbox) -> None:
    """Time every wait of a sandbox's runs, once per sandbox."""
    if id(sandbox) not in _watched:
        _watched.add(id(sandbox))
        sandbox.watch(waited)


class Live(Collector):
    """The gauges read at each scrape: the sandbox's load, the training runs by state and the
    active sessions, each from a reader that returns None while it has nothing to say (the
    server sets them: app/server.py). A reader that fails leaves its gauges out of that scrape
    (the database may be down; /ready says so)."""

    def __init__(self) -> None:
        self.sandbox: Callable[[], Load | None] = lambda: None
        self.runs: Callable[[], dict[str, int] | None] = lambda: None
        self.sessions: Callable[[], int | None] = lambda: None

    def collect(self) -> Iterator[Metric]:
        load = _read(self.sandbox)
        if load is not None:
            yield _gauge("ninja_sandbox_slots", "Sandbox slots (runs at once).", load.slots)
            yield _gauge("ninja_sandbox_slots_busy", "Sandbox slots running a run.", load.busy)
            yield _gauge("ninja_sandbox_queue_depth", "Runs waiting for a slot.", load.waiting)
            yield _gauge("ninja_sandbox_zygotes_alive", "Zygote processes running.", load.alive)
        states = _read(self.runs)
        if states is not None:
            runs = GaugeMetricFamily(
                "ninja_training_runs",
                "Exercise 4's training runs by state: the classroom's queue (every replica reads "
                "the same), or this process's (the local mode: each learner's latest).",
                labels=["state"],
            )
            for state in sorted({*RUN_STATES, *states}):
                runs.add_metric([state], states.get(state, 0))
            yield runs
        sessions = _read(self.sessions)
        if sessions is not None:
            yield _gauge("ninja_active_sessions", "Browser sessions connected now.", sessions)


def _read(reader: Callable[[], T | None]) -> T | None:
    """Return what a reader says, None if it fails (logged)."""
    try:
        return reader()
    except Exception as err:
        log.warning("metrics: %s left out of this scrape: %s", reader.__name__, err)
        return None


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


LIVE = Live()
REGISTRY.register(LIVE)


def exposition() -> bytes:
    """Return every metric of this process in Prometheus's text format."""
    return generate_latest(REGISTRY)
