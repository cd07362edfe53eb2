"""The learner's training run in the local mode: saved with the profile when it finishes,
stopped when replaced; and what the store keeps of a report."""

from __future__ import annotations

from app import services
from app.storage import Profile
from app.training import runs, wire

from ..training_helpers import FakeTrainer, report


def test_a_report_becomes_a_stored_run():
    run = wire.record_of(report("finished"), "dC = ...", "names")
    assert (run.train_loss, run.val_loss, run.samples[0]) == (2.1234, 2.2345, "name0.")
    assert run.settings["steps"] == 2000 and run.dataset == "names" and run.code == "dC = ..."
    assert run.steps_per_s == 1333.0 and len(run.curve) == 200


def test_a_report_without_an_evaluation_keeps_no_losses():
    run = wire.record_of(report("stopped"), "", "default")
    assert run.train_loss is None and run.samples == ()


def test_the_saver_writes_to_the_profiles_store(app_env):
    store = services.store()
    me = store.learners.add_profile("ada")
    finished = report("finished")
    runs.saver("dC = ...", me, "default", FakeTrainer(), finished.settings)(finished)
    assert [r.val_loss for r in store.runs.training_runs(me)] == [2.2345]
    assert store.runs.training_runs(Profile(me.id + 1, "nobody")) == []


def test_starting_again_stops_the_run_before(app_env, monkeypatch):
    monkeypatch.setattr(runs.st, "session_state", {})
    trainer = FakeTrainer()
    store = services.store()
    monkeypatch.setattr(runs.session, "profile", lambda: store.learners.add_profile("ada"))
    runs.start(trainer, "code", None)
    first = runs.current()
    runs.start(trainer, "code", None)
    assert first.job.stopped and first.job.waited == runs.STOP_WAIT
    assert runs.current() is not first and first.position == 0
