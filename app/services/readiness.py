"""Whether this server can serve a class now (`/ready`, app/server.py; HAProxy's health check).

Five parts, each checked at every call, each named with what it found:

- `database`: the progress database answers;
- `schema`: its schema is the code's (`python -m app.storage upgrade`, docs/classroom.md);
- `sandbox`: the sandbox has started and a zygote's process runs (one that died between runs
  is started again here, since no run would come to do it while the server is out);
- `exercises`: the scenarios have run and every exercise is proven (or withdrawn with its
  problem), so that the pages serve the course;
- `references`: the server's first warm-up has computed every exercise's reference gradients
  on the default dataset, so that the first learner the proxy sends is graded at once (a
  warm-up that failed counts as done, and says so: a submission then computes what it needs
  itself, as before; a later version of the exercise files warms up while the replica serves).

    >>> found = readiness.check()
    >>> found.ready, found.failing          # (False, ("database", "schema"))

A check asks for what a first page would start (the scenarios' run, the sandbox): a server
that nobody has opened becomes ready once something asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from app import services
from app.storage import SchemaBehind, StorageUnavailable, schema

DATABASE, SCHEMA, SANDBOX, EXERCISES = "database", "schema", "sandbox", "exercises"
REFERENCES = "references"
NOT_READ = "not read: the database did not answer"


@dataclass(frozen=True)
class Part:
    """One part of the server: whether it is ready, and what was found, in a few words."""

    name: str
    ready: bool
    detail: str


@dataclass(frozen=True)
class Readiness:
    """Every part, in the order checked."""

    parts: tuple[Part, ...]

    @property
    def ready(self) -> bool:
        return all(p.ready for p in self.parts)

    @property
    def failing(self) -> tuple[str, ...]:
        """Return the names of the parts not ready."""
        return tuple(p.name for p in self.parts if not p.ready)

    def as_json(self) -> dict:
        """Return what /ready answers: ready, the failing parts' names, each part's detail."""
        parts = {p.name: {"ready": p.ready, "detail": p.detail} for p in self.parts}
        return {"ready": self.ready, "failing": list(self.failing), "parts": parts}


def check() -> Readiness:
    """Check every part now."""
    services.start_background()  # what a first page would start, if none has
    return Readiness((*database(), sandbox(), exercises(), references()))


def database() -> tuple[Part, Part]:
    """Return whether the database answers, and whether its schema is the code's."""
    try:
        schema.check(services.store().engine)  # opening the store checks it too
    except SchemaBehind as err:
        return Part(DATABASE, True, "answering"), Part(SCHEMA, False, str(err))
    except StorageUnavailable as err:
        return Part(DATABASE, False, str(err)), Part(SCHEMA, False, NOT_READ)
    except Exception as err:  # a database that answers with an error: still not a class's
        found = f"{type(err).__name__}: {err}"
        return Part(DATABASE, False, found), Part(SCHEMA, False, NOT_READ)
    return Part(DATABASE, True, "answering"), Part(SCHEMA, True, "the code's")


def sandbox() -> Part:
    """Return whether the sandbox has started and one of its zygotes runs."""
    probe = services.sandbox_probe()
    if probe.error is not None:
        return Part(SANDBOX, False, f"it could not start: {probe.error}")
    if probe.sandbox is None:
        return Part(SANDBOX, False, "starting")
    load = probe.sandbox.load()
    if load.alive == 0:
        probe.sandbox.revive()
        return Part(SANDBOX, False, "no zygote was running: started again")
    held = f" ({load.held} starting once the one before is ready)" if load.held else ""
    busy = f"{load.busy} busy, {load.waiting} waiting"
    return Part(SANDBOX, True, f"{load.alive} of {load.slots} zygotes running{held}, {busy}")


def exercises() -> Part:
    """Return whether the scenarios have run and every exercise is proven or withdrawn."""
    try:
        ran = services.ran_catalog()
    except Exception as err:  # the scenarios' run failed: what the first page would show
        return Part(EXERCISES, False, f"the scenarios could not run: {err}")
    if ran is None:
        return Part(EXERCISES, False, "the scenarios are running")
    pending = services.proofs_pending()
    if pending:
        return Part(EXERCISES, False, f"{len(pending)} exercise(s) not proven yet")
    served = len(services.catalog().exercises)
    if not served:
        return Part(EXERCISES, False, "no exercise is served (the Problems page says why)")
    return Part(EXERCISES, True, f"{served} exercise(s) served")


def references() -> Part:
    """Return whether the first warm-up has ended: the references a first submission needs."""
    ended = services.warmed_up()
    if ended is None:
        return Part(REFERENCES, False, "computing every exercise's reference gradients")
    if ended.error is not None:
        why = type(ended.error).__name__
        failed = f"the warm-up failed after {ended.seconds:.1f} s ({why}; the log says why)"
        return Part(REFERENCES, True, f"{failed}: first submissions compute them")
    return Part(REFERENCES, True, f"computed in {ended.seconds:.1f} s")
