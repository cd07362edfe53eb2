"""Whether a server can serve a class (app/services/readiness.py), part by part, on real parts: a
SQLite file, the session's PostgreSQL (a database without the schema, and an address nobody
answers at), the process-wide sandbox, and the app's exercises. The answers of /ready through
a real server, and HAProxy's use of them: tests/e2e/test_operations.py, test_stack.py."""

from __future__ import annotations

import gc
import threading

import pytest

from app import services
from app.services import readiness
from app.services.background import LayerProbe, Warmup
from app.storage import schema
from grader.sandbox import Load, MissingLayers, default_sandbox

from ...postgres import PORT


def test_a_fresh_local_server_is_ready_in_every_part(app_env, monkeypatch):
    probe = LayerProbe(False, 5.0)
    probe.sandbox = default_sandbox()  # as the probe's thread leaves it once started
    monkeypatch.setattr(services, "sandbox_probe", lambda: probe)
    monkeypatch.setattr(services, "start_background", lambda: None)
    monkeypatch.setattr(Warmup, "first", None)
    Warmup(lambda: None).run()  # as its thread does, here and now
    found = readiness.check()
    assert found.ready and found.failing == ()
    parts = found.as_json()["parts"]
    assert list(parts) == ["database", "schema", "sandbox", "exercises", "references"]
    assert parts["references"] == {"ready": True, "detail": "computed in 0.0 s"}
    assert parts["sandbox"]["detail"].startswith("2 of 2 zygotes running")
    count = len(services.catalog().exercises)
    assert parts["exercises"] == {"ready": True, "detail": f"{count} exercise(s) served"}


def test_a_database_nobody_answers_at_fails_the_database_and_leaves_the_schema_unread(
    app_env, monkeypatch, tmp_path
):
    monkeypatch.setenv(
        "NINJA_DATABASE_URL", f"postgresql://ninja@/ninja?host={tmp_path}&port={PORT}"
    )
    database, version = readiness.database()
    assert (database.name, database.ready) == ("database", False)
    assert "did not answer: OperationalError" in database.detail
    assert (version.ready, version.detail) == (False, readiness.NOT_READ)


def test_a_database_behind_the_code_fails_the_schema_until_upgraded(app_env, monkeypatch, postgres):
    url = postgres.new_database()
    monkeypatch.setenv("NINJA_DATABASE_URL", url)
    database, version = readiness.database()
    assert database.ready and not version.ready
    assert "run `python -m app.storage upgrade`" in version.detail
    from app.storage.engine import make_engine

    engine = make_engine(url)
    schema.upgrade(engine)
    engine.dispose()
    assert [p.ready for p in readiness.database()] == [True, True]


def test_the_sandbox_is_starting_then_refused_for_lacking_layers(app_env, monkeypatch):
    probe = LayerProbe(True, 5.0)
    monkeypatch.setattr(services, "sandbox_probe", lambda: probe)
    assert (readiness.sandbox().ready, readiness.sandbox().detail) == (False, "starting")
    probe.error = MissingLayers({"seccomp": "unavailable: no libseccomp"})
    part = readiness.sandbox()
    assert not part.ready and part.detail.startswith("it could not start:")
    assert "seccomp" in part.detail


@pytest.mark.parametrize(
    "load, detail",
    [
        (Load(2, 0, 0, 2), "2 of 2 zygotes running, 0 busy, 0 waiting"),
        (
            Load(2, 1, 0, 2, held=1),
            "2 of 2 zygotes running (1 starting once the one before is ready), 1 busy, 0 waiting",
        ),
    ],
)
def test_a_zygote_held_until_the_one_before_is_ready_is_named_so(
    app_env, monkeypatch, load, detail
):
    probe = LayerProbe(False, 5.0)
    probe.sandbox = type("Started", (), {"load": lambda self: load})()
    monkeypatch.setattr(services, "sandbox_probe", lambda: probe)
    assert (readiness.sandbox().ready, readiness.sandbox().detail) == (True, detail)


@pytest.mark.parametrize(
    "state, detail",
    [
        ({"ran_catalog": lambda: None}, "the scenarios are running"),
        ({"proofs_pending": lambda: {"dh", "dW1"}}, "2 exercise(s) not proven yet"),
    ],
)
def test_exercises_are_ready_once_run_and_proven(app_env, monkeypatch, state, detail):
    for name, value in state.items():
        monkeypatch.setattr(services, name, value)
    assert readiness.exercises() == readiness.Part("exercises", False, detail)


@pytest.mark.parametrize("fails", [False, True])
def test_the_references_are_ready_once_the_first_warm_up_has_ended_failed_or_not(
    app_env, monkeypatch, fails
):
    monkeypatch.setattr(Warmup, "first", None)
    go = threading.Event()

    def work():
        go.wait(30)
        if fails:
            raise RuntimeError("a dataset that cannot be read")

    warmup = Warmup(work)
    waiting = readiness.Part("references", False, "computing every exercise's reference gradients")
    assert readiness.references() == waiting, "not started yet"
    warmup.begin()
    assert readiness.references() == waiting, "started, not ended"
    go.set()
    warmup.join(30)
    part = readiness.references()
    assert part.ready, part
    if fails:
        assert part.detail.startswith("the warm-up failed after ")
        assert "(RuntimeError; the log says why): first submissions compute them" in part.detail
    else:
        assert part.detail.startswith("computed in ")


def test_a_later_warm_up_leaves_the_replica_ready(app_env, monkeypatch):
    """An instructor's edit makes a new version of the files, warmed up while the class goes on:
    the replica stays in the proxy's rotation."""
    monkeypatch.setattr(Warmup, "first", None)
    Warmup(lambda: None).run()
    go = threading.Event()
    later = Warmup(lambda: go.wait(30))
    monkeypatch.setattr(services, "_warmup", lambda root, signature: later)  # the new version's
    later.begin()
    try:
        part = readiness.references()
        assert part.ready and part.detail.startswith("computed in "), part
    finally:
        go.set()
        later.join(30)
    assert Warmup.first is not later


def test_the_first_warm_up_alone_sets_what_the_start_made_apart_from_the_collector(
    app_env, monkeypatch
):
    """The first warm-up ends with every object alive frozen (a full collection then walks only
    what the server made since); a later version's warm-up, while learners are served, does
    not stop the server for a collection of everything."""
    monkeypatch.setattr(Warmup, "first", None)
    gc.unfreeze()
    made = [[] for _ in range(1000)]  # alive at the warm-up's end
    try:
        Warmup(lambda: None).run()
        assert gc.get_freeze_count() >= len(made), "what was alive at the end is set apart"
        assert not any(o is made for o in gc.get_objects()), "a collection no longer walks it"
        gc.unfreeze()
        later = Warmup(lambda: None)
        monkeypatch.setattr(services, "_warmup", lambda root, signature: later)
        later.run()
        assert gc.get_freeze_count() == 0, "a later warm-up sets nothing apart"
    finally:
        gc.unfreeze()


def test_the_default_datasets_warm_up_needs_no_database(app_env, monkeypatch, tmp_path):
    """A replica that starts before its database still warms the default dataset's grader."""
    monkeypatch.setenv(
        "NINJA_DATABASE_URL", f"postgresql://ninja@/ninja?host={tmp_path}&port={PORT}"
    )
    services._dataset.clear()  # built again here, not found from an earlier test
    chosen = services.dataset(services.DEFAULT_SOURCE)
    assert len(chosen.words) > 1000
