"""The parent's handle on the sandbox: a pool of zygotes, admission, and one call per run."""

from __future__ import annotations

import atexit
import logging
import queue as queue_module
import threading
import time
from collections.abc import Callable, Sequence

from .client import START_TIMEOUT, ZygoteClient, ZygoteFailure
from .codec import job_blobs, job_header
from .layers import MissingLayers, missing, shield
from .records import Case, Limits, Load, RunOutcome
from .verdict import INTERNAL, judge, message, reached_autograd

logger = logging.getLogger("grader.sandbox")
DEFAULT_LIMITS = Limits()


class Sandbox:
    """Run untrusted learner code in confined workers forked from warm zygotes.

    Thread-safe; `slots` runs proceed at once and up to `queue` more wait, after which `run`
    answers "busy" at once. `load()` says how busy it is now, and `watch(on_wait)` hears how
    long each admitted run waited for a slot (the app's metrics). The zygotes start one after
    another, each once the one before has said ready, and each takes runs once it is ready:
    on a server's one busy core the first run waits for one start-up, not for all at once.

        >>> sandbox = Sandbox(Limits(cpu_seconds=2))
        >>> outcome = sandbox.run("y = x * 2", [Case("lecture", {"x": x}, {}, ("y",))])
        >>> outcome.status, outcome.cases[0].returned["y"].tensor
        >>> sandbox.load()  # Load(slots=2, busy=0, waiting=0, alive=2)
    """

    def __init__(
        self,
        limits: Limits = DEFAULT_LIMITS,
        slots: int = 2,
        queue: int = 32,
        require_all_layers: bool = False,
    ):
        if slots < 1 or queue < 0:
            raise ValueError("need at least one slot and a non-negative queue")
        shield()
        self.limits = limits
        self._zygotes = [ZygoteClient(held=n > 0) for n in range(slots)]
        self._free: queue_module.Queue[ZygoteClient] = queue_module.Queue()
        self._free.put(self._zygotes[0])
        self._admission = threading.Semaphore(slots + queue)
        self._counting, self._waiting = threading.Lock(), 0  # runs admitted, waiting for a slot
        self._pooled = 1  # zygotes that take runs: the first, then each other once ready
        self._watchers: list[Callable[[float], None]] = []
        self._layers: dict[str, str] = {}
        self._announced = threading.Event()
        self._closed = False
        threading.Thread(target=self._announce, name="sandbox-layers", daemon=True).start()
        if require_all_layers and (lacking := self.missing_layers()):
            self.close()
            raise MissingLayers(lacking)

    def run(
        self,
        code: str,
        cases: Sequence[Case],
        limits: Limits | None = None,
        meanwhile: Callable[[], None] | None = None,
    ) -> RunOutcome:
        """Run code once per case, each in a fresh namespace, in one confined worker; call
        `meanwhile()`, if given, while the worker runs (its failure is logged, never raised)."""
        started, limits = time.monotonic(), limits or self.limits
        header, cases = job_header(code, cases, limits), list(cases)  # checked before admission
        if self._closed:
            raise RuntimeError("the sandbox is closed")
        if not self._admission.acquire(blocking=False):
            return RunOutcome("busy", message("busy", limits), (), time.monotonic() - started)
        try:
            zygote = self._take()
            try:
                return self._run_on(zygote, header, cases, limits, started, meanwhile)
            finally:
                self._free.put(zygote)
        finally:
            self._admission.release()

    def _take(self) -> ZygoteClient:
        """Return a free zygote, waiting for one; tell the watchers how long the wait was."""
        queued = time.monotonic()
        with self._counting:
            self._waiting += 1
        try:
            zygote = self._free.get()
        finally:
            with self._counting:
                self._waiting -= 1
        waited = time.monotonic() - queued
        for on_wait in self._watchers:
            try:
                on_wait(waited)
            except Exception:  # a watcher's fault never costs the learner's run
                logger.exception("sandbox: a watcher of the waits failed")
        return zygote

    def _run_on(self, zygote: ZygoteClient, header: dict, cases: list, limits, started, meanwhile):
        """Run the job on one zygote, restarting the zygote if it fails; its blobs are made
        while the zygote hands over its worker."""
        job = lambda: (header, job_blobs(cases))  # noqa: E731
        with zygote.lock:
            try:
                report, stream = zygote.run(job, cases, limits, meanwhile)
            except Exception as e:  # ZygoteFailure, or a fault of the sandbox itself
                logger.error("sandbox: %r; restarting the zygote", e, exc_info=True)
                zygote.restart()
                return RunOutcome("internal", INTERNAL, (), time.monotonic() - started, repr(e))
        status, text, log = judge(report, stream, limits)
        autograd = reached_autograd(report, stream, limits)
        elapsed = time.monotonic() - started
        return RunOutcome(status, text, tuple(stream.cases), elapsed, log, autograd)

    def load(self) -> Load:
        """Return how busy the sandbox is now (no wait, no side effect). A zygote that takes
        no runs yet (held until the one before it is ready, or starting) counts in the slots,
        as alive while its process runs, not as busy, and in `held`."""
        with self._counting:
            busy = self._pooled - self._free.qsize()
            held = len(self._zygotes) - self._pooled
        alive = sum(zygote.alive for zygote in self._zygotes)
        return Load(len(self._zygotes), busy, self._waiting, alive, held)

    def watch(self, on_wait: Callable[[float], None]) -> None:
        """Call on_wait(seconds) with each admitted run's wait for a free slot, from its thread."""
        self._watchers.append(on_wait)

    def revive(self) -> int:
        """Start again each zygote whose process died while no run holds it (the next run on
        it would do so first); return how many were started."""
        started = 0
        for zygote in self._zygotes:
            if self._closed or zygote.alive or not zygote.lock.acquire(blocking=False):
                continue
            try:
                zygote.restart()
                started += 1
            finally:
                zygote.lock.release()
        return started

    def layers(self) -> dict[str, str]:
        """Return each sandbox layer -> "on" or "unavailable: why" (waits for start-up)."""
        self._announced.wait(START_TIMEOUT)
        return dict(self._layers)

    def missing_layers(self) -> dict[str, str]:
        """Return each layer this machine does not provide -> why (empty when all are on)."""
        return missing(self.layers())

    def _announce(self) -> None:
        """Log, once, which layers the machine provides and which it cannot."""
        try:
            with self._zygotes[0].lock:
                layers = dict(self._zygotes[0].ready())
        except ZygoteFailure as e:
            if self._closed:  # closed before the zygote reported: no layer is missing
                self._announced.set()
                return
            layers = {"zygote": f"unavailable: {e}"}
        for name, state in layers.items():
            log = logger.info if state == "on" else logger.warning
            log("sandbox layer %s: %s", name, state)
        self._layers = layers
        self._announced.set()
        self._start_the_rest()

    def _start_the_rest(self) -> None:
        """Start each held zygote once the one before it is ready, and let it take runs once
        it is ready too. One that fails to start (it died while held, say) is started again
        before it takes runs, so that no learner's run meets a dead zygote."""
        for zygote in self._zygotes[1:]:
            with zygote.lock:
                if self._closed:
                    return
                try:
                    zygote.ready()
                except Exception as e:  # noqa: BLE001 - whatever it was, start it afresh
                    if self._closed:
                        return
                    logger.error("sandbox: zygote %d did not start: %r", zygote.proc.pid, e)
                    zygote.restart()  # its first run waits for its start-up report
            with self._counting:
                self._free.put(zygote)
                self._pooled += 1

    def close(self) -> None:
        """Stop every zygote (and any worker still running)."""
        self._closed = True
        for zygote in self._zygotes:
            zygote.stop()


_default: Sandbox | None = None
_default_lock = threading.Lock()


def default_sandbox(require_all_layers: bool = False, limits: Limits | None = None) -> Sandbox:
    """Return the process-wide sandbox, starting it on first use (closed at exit).

    With require_all_layers, the first call raises MissingLayers if any layer is off. Limits,
    when given, apply to every later run that names none (the app's configured time limit).
    """
    global _default
    with _default_lock:
        if _default is None:
            _default = Sandbox(limits or DEFAULT_LIMITS, require_all_layers=require_all_layers)
            atexit.register(_default.close)
        elif limits is not None:
            _default.limits = limits
        return _default
