"""The session's training run: saved with the profile when it finishes, stopped when replaced."""

from __future__ import annotations

from app import services, training_session
from app.storage import Profile

from .training_helpers import FakeTrainer, report


def test_a_report_becomes_a_stored_run():
    run = training_session.record_of(report("finished"), "dC = ...", "names")
    assert (run.train_loss, run.val_loss, run.samples[0]) == (2.1234, 2.2345, "name0.")
    assert run.settings["steps"] == 2000 and run.dataset == "names" and run.code == "dC = ..."
    assert run.steps_per_s == 1333.0 and len(run.curve) == 200


def test_a_report_without_an_evaluation_keeps_no_losses():
    run = training_session.record_of(report("stopped"), "", "default")
    assert run.train_loss is None and run.samples == ()


def test_the_saver_writes_to_the_profiles_store(app_env):
    store = services.store()
    me = store.add_profile("ada")
    training_session.saver("dC = ...", me, "default")(report("finished"))
    assert [r.val_loss for r in store.training_runs(me)] == [2.2345]
    assert store.training_runs(Profile(me.id + 1, "nobody")) == []


def test_starting_again_stops_the_run_before(app_env, monkeypatch):
    state: dict = {}
    monkeypatch.setattr(training_session.st, "session_state", state)
    trainer = FakeTrainer()
    store = services.store()
    monkeypatch.setattr(training_session.session, "profile", lambda: store.add_profile("ada"))
    training_session.start(trainer, "code", None)
    first = training_session.current()
    training_session.start(trainer, "code", None)
    assert first.stopped and first.waited == 5 and training_session.current() is not first
