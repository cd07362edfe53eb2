"""The training page: settings, the section, the gradient check, a run, results and history."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from app import services, session
from app.screens.training import BUTTONS
from app.storage import Attempt, TrainingRun
from app.training import runs
from grader.feedback.voice import duration

from ..app_helpers import page_test, submit, texts
from ..training_helpers import WRONG, FakeTrainer, ended, report


@pytest.fixture
def trainer(app_env, monkeypatch):
    """Replace the trainer with FakeTrainer; return it."""
    fake = FakeTrainer()
    monkeypatch.setattr(services, "trainer", lambda source: fake)
    return fake


def _page():
    return page_test(page="training").run()


def _button(at, label: str):
    return next(b for b in at.button if b.label == label)


def _table(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _start(at):
    _button(at, "Start training").click()
    return at.run()


def test_the_page_shows_the_loop_around_a_prefilled_section(trainer):
    at = _page()
    assert not at.exception
    assert at.title[0].value == "Exercise 4: train the MLP"
    code = "\n".join(c.value for c in at.code)
    assert "for i in range(max_steps):" in code and "max_steps = 200000" in code
    assert "p.add_(grad, alpha=-lr)" in code and "lr = 0.1 if i < 100000 else 0.01" in code
    section = at.text_area[0].value
    assert "# cross entropy loss backward (Exercise 2)" in section and "dlogits = ..." in section
    captions = [c.value for c in at.caption]
    assert BUTTONS in captions, "Submit and Start training told apart where they are"


def test_the_section_starts_from_the_learners_solved_answers(trainer):
    _page()
    store = services.store()
    answer = "dh = dlogits @ W2.T  # my own"
    attempt = Attempt("dh", answer, True, "", 0.01, 5.0, "default")
    store.work.record_attempt(store.learners.profiles()[0], attempt)
    store.work.record_attempt(
        store.learners.profiles()[0], Attempt("dW2", "dW2 = 0", False, "", 0.0, 1.0, "x")
    )
    section = _page().text_area[0].value
    assert answer in section and "dW2 = ..." in section


def test_the_quick_preset_sets_the_settings(trainer):
    at = _page()
    _button(at, "Quick: 20,000 steps").click()
    at.run()
    steps = next(n for n in at.number_input if n.label == "Steps")
    assert steps.value == 20_000
    assert "max_steps = 20000" in "\n".join(c.value for c in at.code)


def test_submitting_checks_the_gradients_and_names_the_wrong_one(trainer):
    at = submit(_page(), f"{WRONG}\ndW2 = 2 * dW2\n")
    assert "`dW2` does not match autograd" in at.error[0].value
    table = at.dataframe[0].value
    assert list(table["shape"])[:2] == ["(27, 10)", "(30, 200)"]
    assert list(table[""]) == ["✓", "✓", "✓", "✗", "✓", "✓", "✓"]
    assert trainer.started == []


def test_start_with_a_wrong_section_does_not_train(trainer):
    at = submit(_page(), f"{WRONG}\n")
    at = _start(at)
    assert "`dW2` does not match autograd" in texts(at)
    assert trainer.started == [] and runs.JOB_KEY not in at.session_state


def test_start_trains_and_shows_progress_with_a_stop_button(trainer):
    at = _start(_page())
    assert not at.exception and len(trainer.started) == 1
    assert "All seven gradients match autograd" in texts(at)
    bar = at.get("progress")[0].proto.text
    assert bar == f"Step 500 of 2,000 · 1,480 steps/s · {duration(1.0)} left", bar
    assert len(at.get("vega_lite_chart")) == 1, "the live log10 loss curve"
    axes = json.loads(at.get("vega_lite_chart")[0].proto.spec)["layer"][0]["encoding"]
    assert axes["x"]["title"] == "step" and axes["x"]["field"] == "step"
    assert axes["y"]["title"] == "log10 loss (mean of 10 steps)"
    run = at.session_state[runs.JOB_KEY]
    _button(at, "Stop").click()
    at.run()
    assert run.job.stopped and "as you asked" in at.success[-1].value


def test_a_finished_run_shows_losses_samples_curves_and_speed(trainer):
    trainer.next_status = ended("finished")
    at = _start(_page())
    shown = texts(at)
    assert "Training finished: 2,000 steps in 1.5 s." in shown
    assert "yours is 1.21x faster" in shown and "2.0705" in shown
    losses = _table(at, "trained by")
    assert list(losses["trained by"]) == ["your backward pass", "autograd"]
    assert list(losses["train loss"]) == ["2.1234", "2.1233"]
    samples = _table(at, "autograd")
    assert list(samples["your backward pass"])[:1] == ["name0."] and len(samples) == 20
    assert len(at.get("image")) == 1, "the loss curves"


def test_a_stopped_run_shows_the_loss_of_the_steps_it_did(trainer):
    trainer.next_status = ended("stopped")
    at = _start(_page())
    assert "Training stopped at step 700 of 2,000" in at.success[-1].value
    assert "**The loss over the 700 steps it did**" in texts(at)
    (metric,) = at.metric
    assert metric.label == "Loss over steps 691 to 700"
    assert metric.value == f"{10 ** (0.5 - 69 / 1000):.4f}"  # the curve's last point
    (chart,) = at.get("vega_lite_chart")
    assert json.loads(chart.proto.spec)["layer"][0]["encoding"]["y"]["title"] == (
        "log10 loss (mean of 10 steps)"
    )


def test_a_run_stopped_within_its_first_bucket_says_it_has_no_loss_yet(trainer):
    stopped = ended("stopped")
    early = replace(stopped.report, steps_done=4, curve=())
    trainer.next_status = replace(stopped, step=4, curve=(), report=early)
    at = _start(_page())
    assert "It did 4 steps, fewer than the 10 that a point" in texts(at)
    assert not at.metric and not at.get("vega_lite_chart")


def test_a_failed_run_says_why(trainer):
    trainer.next_status = ended("failed")
    at = _start(_page())
    assert "`loss` is nan at step 6" in at.error[-1].value


def test_a_reference_still_training_is_waited_for(trainer):
    trainer.next_status = ended("finished")
    trainer.reference_state = "running"
    at = _start(_page())
    assert "The autograd reference is training with the same settings: step 1,200" in texts(at)


def test_finished_runs_are_listed_from_the_store(trainer):
    _page()
    store = services.store()
    run = TrainingRun({"steps": 20000, "batch_size": 32, "n_hidden": 200}, 2.2, 2.25,
                      ("emma.",), 1500.0, 13.3, (0.5,), "default", "dC = ...")  # fmt: skip
    store.runs.record_run(store.learners.profiles()[0], run)
    at = _page()
    assert at.header[-1].value == "Your finished runs"
    table = at.dataframe[-1].value
    assert list(table["steps"]) == ["20,000"] and list(table["val loss"]) == [2.25]


def test_a_finished_run_is_saved_with_the_profile(trainer):
    at = _start(_page())
    assert not at.exception
    trainer.on_finish(report("finished"))
    runs = services.store().runs.training_runs(services.store().learners.profiles()[0])
    assert [(r.train_loss, r.val_loss, r.samples[0]) for r in runs] == [(2.1234, 2.2345, "name0.")]
    assert runs[0].settings["steps"] == 2000 and runs[0].dataset == "default"


def test_the_page_checks_with_the_real_trainer(app_env):
    at = submit(_page(), "dC = torch.zeros_like(C)\n")
    assert not at.exception
    assert "`dW2` does not match autograd" in at.error[0].value
    table = _table(at, "gradient")
    assert list(table["feedback"])[1] == "dW1 is not defined: expected a torch.Tensor."


def test_an_edited_section_can_be_rebuilt_from_solved_answers(trainer):
    at = submit(_page(), f"{WRONG}\n")
    assert at.text_area[0].value == f"{WRONG}\n"
    _button(at, "Rebuild from my solved answers").click()
    at.run()
    assert "dlogits = ..." in at.text_area[0].value
    assert not [b for b in at.button if b.label == "Rebuild from my solved answers"]


def test_a_reload_reattaches_to_the_running_job_and_stops_it(trainer):
    first = _start(_page())
    run = first.session_state[runs.JOB_KEY]
    again = _page()  # a new session of the same learner: a reload, or a second tab
    assert not again.exception
    bar = again.get("progress")[0].proto.text
    assert bar.startswith("Step 500 of 2,000"), "the live progress of the same run"
    assert again.session_state[runs.JOB_KEY] is run
    _button(again, "Stop").click()
    again.run()
    assert run.job.stopped


def test_another_learner_does_not_see_the_run(trainer):
    _start(_page())
    grace = services.store().learners.add_profile("grace")
    other = page_test(page="training")
    other.session_state[session.PROFILE_KEY] = grace
    other.run()
    assert not other.get("progress"), "grace has no run"


def test_a_finished_run_can_be_opened_again(trainer):
    _page()
    store = services.store()
    settings = {"steps": 20000, "batch_size": 32, "n_hidden": 200}
    samples, curve = ("emma.", "olivia."), (0.5, 0.4, 0.35)
    run = TrainingRun(settings, 2.2, 2.25, samples, 1500.0, 13.3, curve, "default", "dC = ...")
    store.runs.record_run(store.learners.profiles()[0], run)
    at = _page()
    at.selectbox(key="training:open").select(0).run()
    assert not at.exception
    samples = _table(at, "samples")
    assert list(samples["samples"]) == ["emma.", "olivia."]
    assert len(at.get("image")) == 1, "its loss curve"
