"""Work the server starts once, in threads, so that no page waits for it: the scenarios' first
run (app/services.catalog serves nothing before it), the sandbox's start, and the warm-up (the
store opened, the default dataset built, every exercise's references computed, the loaded
modules mapped to their files) so that the first page run and the first submission are as fast
as the next."""

from __future__ import annotations

import gc
import inspect
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from app.services import metrics
from grader import proving, sandbox

if TYPE_CHECKING:
    from grader import Catalog
    from grader.sandbox import Sandbox

log = logging.getLogger("app.services")
NO_MODULE = compile("", "<no module>", "exec")  # code of a file that no module has (map_modules)


class Once(threading.Thread):
    """A daemon thread that any number of callers may start: the first one does."""

    def __init__(self, name: str):
        super().__init__(name=name, daemon=True)
        self._lock = threading.Lock()

    def begin(self) -> None:
        """Start the thread unless it has been started."""
        with self._lock:
            if self.ident is None:
                self.start()


class ScenarioRuns(Once):
    """Withdraw the scenarios that fail to run (the only step that imports torch before a page
    needs it), off the script's thread."""

    def __init__(self, declared: Catalog):
        super().__init__("scenario-runs")
        self.declared = declared
        self.done = threading.Event()
        self.catalog: Catalog | None = None
        self.error: Exception | None = None

    def run(self) -> None:
        try:
            self.catalog = proving.runnable(self.declared)
        except Exception as e:  # raised again on the page that waits for the catalog
            self.error = e
        finally:
            self.done.set()

    def wait(self) -> Catalog:
        """Return the catalog once every scenario has run; raise what running them raised."""
        self.begin()
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.catalog


class LayerProbe(Once):
    """Start the sandbox and record its missing layers (or why it refused to start); keep the
    sandbox it started (`sandbox`: None until then), whose load the readiness and the metrics
    read."""

    def __init__(self, require_all: bool, time_limit: float):
        super().__init__("sandbox-layers")
        self.require_all = require_all
        self.time_limit = time_limit
        self.missing: dict[str, str] | None = None
        self.error: Exception | None = None
        self.sandbox: Sandbox | None = None

    def run(self) -> None:
        limits = sandbox.Limits(cpu_seconds=self.time_limit, wall_seconds=2 * self.time_limit)
        try:
            started = sandbox.default_sandbox(self.require_all, limits)
            metrics.watch(started)  # every run's wait for a slot, from now on
            self.missing = started.missing_layers()
            self.sandbox = started
        except Exception as e:  # MissingLayers, or a sandbox that cannot start at all
            self.error = e
            self.missing = {"sandbox": str(e)}


class Warmup(Once):
    """Do, once, what a first page run and a first submission would otherwise wait for (`work`:
    open the store, build the default dataset's grader and its references); `done` once
    finished, failed or not (a page then does what is left itself, as before), how long it took
    (`seconds`, None until then) and what it raised (`error`). `Warmup.first` is the first of
    the process's warm-ups to end: the readiness waits for it alone, so a later version of the
    exercise files warms up while the replica serves."""

    first: ClassVar[Warmup | None] = None

    def __init__(self, work: Callable[[], None]):
        super().__init__("warm-up")
        self.work = work
        self.done = threading.Event()
        self.seconds: float | None = None
        self.error: Exception | None = None

    def run(self) -> None:
        began = time.perf_counter()
        try:
            self.work()
        except Exception as e:  # the page that needs it computes it again, and says what failed
            self.error = e
            log.exception("warming up failed")
        finally:
            self.seconds = time.perf_counter() - began
            log.info("warmed up in %.2f s", self.seconds)
            if Warmup.first is None:
                set_apart()
                Warmup.first = self
            self.done.set()


def set_apart() -> None:
    """Collect once, then put every object alive (torch, the references, the store: some 350,000)
    out of the collector's sight for good (`gc.freeze`): a full collection, which Python starts
    as objects pile up, then walks only what the server made since, not all of them (0.1 to 0.6 s
    with the GIL held). Done by the first warm-up alone, before the readiness lets learners in."""
    began = time.perf_counter()
    gc.collect()
    gc.freeze()
    log.info("%d objects set apart in %.2f s", gc.get_freeze_count(), time.perf_counter() - began)


def open_early(open_store: Callable[[], object]) -> None:
    """Open the progress store before any page does: a new SQLite file is created and brought
    to the code's schema here (0.3 to 0.7 s of a first page run, sampled), once per data
    folder; a PostgreSQL database is only checked, as a page would (the upgrade command alone
    migrates it). A database that does not answer, or is behind, is logged and the warm-up
    goes on: the first page that opens the store tries again and says what failed."""
    try:
        open_store()
    except Exception as err:  # a page raises it again, where it is shown
        why = f"{type(err).__name__}: {err}"
        log.warning("the progress database was not opened at start: %s", why)


def map_modules() -> None:
    """Map the modules loaded so far to their files, as `inspect.getmodule` does for a file it
    has not seen. Streamlit's first element of a process asks `inspect.stack()` whether it runs
    in a REPL, which maps every module not mapped yet (a realpath each): 0.06 to 0.12 s sampled
    of a first page run after /ready's 200 (the server's `import torch` maps most of them
    itself), 0.3 s at once after the start; the page then maps only the modules imported since."""
    inspect.getmodule(NO_MODULE)
