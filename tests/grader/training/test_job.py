"""One training run: each way it can end, told in the learner's terms, with nothing left over."""

from __future__ import annotations

import time

from grader.language import Language
from grader.sandbox import Limits
from grader.training import job as trainjob
from grader.training.job import TrainingJob, limits_for
from grader.training.records import TrainSettings

from ..sandbox.training.test_stream import children, gone

SHORT = TrainSettings(steps=300, decay_step=150)
LECTURE_DC = """
dC = torch.zeros_like(C)
for k in range(Xb.shape[0]):
    for j in range(Xb.shape[1]):
        ix = Xb[k, j]
        dC[ix] += demb[k, j]
"""


def _run(code: str, data, settings: TrainSettings = SHORT, **kwargs):
    job = TrainingJob(code, settings, data, **kwargs)
    return job, job.wait(60)


def test_limits_allow_minutes_beyond_the_expected_run():
    limits = limits_for(TrainSettings())
    assert limits.cpu_seconds == 200_000 / 400 + 180 and limits.wall_seconds > limits.cpu_seconds
    assert limits.memory_bytes == 3 * 1024**3


def test_a_run_beyond_the_limit_of_runs_is_refused_at_once(default_data, reference_section,
                                                           monkeypatch):  # fmt: skip
    monkeypatch.setattr(trainjob, "MAX_RUNS", 0)
    job, status = _run(reference_section, default_data)
    assert status.state == "failed" and job.pid is None
    assert status.message == "The trainer is busy with 0 runs; try again when one of them finishes."


def test_a_run_whose_session_has_gone_is_stopped(default_data, reference_section, monkeypatch):
    monkeypatch.setattr(trainjob, "GRACE", 0.0)
    job, status = _run(reference_section, default_data, TrainSettings(), alive=lambda: False)
    assert status.state == "stopped" and "the browser session ended" in status.message
    assert gone(job.pid) and not children(job.pid)


def test_an_exception_is_told_with_its_line_and_step(default_data, reference_section):
    late = "if i == 4:  # the loop's step, 0 first\n    1 / 0\n"
    _, status = _run(reference_section + late, default_data)
    lines = len(reference_section.splitlines())
    assert status.state == "failed"
    assert status.message == f"Your code raised ZeroDivisionError on line {lines + 2} at step 4:"
    assert status.report.error.line == lines + 2 and status.report.steps_done == 4


def test_a_gradient_of_the_wrong_shape_stops_the_run(default_data, reference_section):
    late = "if i >= 3:\n    dW1 = dW1.T\n"
    _, status = _run(reference_section + late, default_data)
    assert status.message == (
        "`dW1` has the wrong shape: got (200, 30), expected (30, 200). Training stopped at step 3."
    )


class Unchecked(Language):
    """No exercise language: the code meets the training worker's layers as it is."""

    def refusal(self, tree):
        return None


def test_autograd_is_refused_in_the_worker_too(default_data, reference_section):
    code = reference_section + "getattr(loss, 'back' + 'ward')()\n"
    _, status = _run(code, default_data, language=Unchecked())
    assert status.state == "failed" and "called autograd" in status.message
    job, status = _run(code, default_data)  # the job checks the language first: nothing starts
    assert status.state == "failed" and "`getattr`" in status.message and job.pid is None


def test_what_the_code_prints_comes_back(small_data, reference_section):
    job = TrainingJob(reference_section + "print('hi')\n", TrainSettings(steps=3), small_data)
    assert job.status().state == "starting" and job.status().seconds_left is None
    status = job.wait(60)
    assert status.state == "finished" and status.report.stdout == "hi\n" * 3


def test_a_run_too_slow_for_its_limits_is_told_so(default_data, reference_section, monkeypatch):
    monkeypatch.setattr(trainjob, "limits_for", lambda s: Limits(cpu_seconds=5, wall_seconds=2))
    slow = reference_section + "busy = [k * k for k in range(20_000)]\n"
    job, status = _run(slow, default_data, TrainSettings(steps=100_000))
    assert status.state == "failed" and gone(job.pid)
    assert status.message.startswith("Training did not finish within 2.0 s; at ")
    assert "steps take about" in status.message


def test_a_python_loop_for_dc_is_measured_against_index_add(small_data, reference_section):
    start = reference_section.index("dC = torch.zeros_like(C)")
    code = reference_section[:start] + LECTURE_DC.lstrip()
    _, status = _run(code, small_data)
    advice = status.report.advice
    # Which form is faster is a benchmark (bench/bench_training.py); here: both were measured
    # and the projection is the run's own speed scaled by their ratio.
    assert status.state == "finished" and advice.loop_ms > 0 and advice.index_add_ms > 0
    ratio = advice.loop_ms / advice.index_add_ms
    assert abs(advice.projected - advice.steps_per_s * ratio) < 1e-6 * advice.projected
    line = code.splitlines().index("for k in range(Xb.shape[0]):") + 1
    assert status.report.notes[0].startswith(f"`dC` is accumulated in a Python loop (line {line})")


def test_nothing_is_left_running_at_exit(default_data, reference_section):
    job = TrainingJob(reference_section, TrainSettings(), default_data)
    # The worker is the trainer's one child once steps are counted (before that, a short-lived
    # child may come and go: a library lookup runs a program of its own).
    deadline, kids = time.monotonic() + 120, []
    while True:
        kids = children(job.pid) if job.status().step > 0 else []
        if len(kids) == 1:
            break
        assert time.monotonic() < deadline, f"no training worker to be found: {kids}"
        time.sleep(0.05)
    (worker,) = kids
    trainjob._stop_all()
    assert gone(worker) and gone(job.pid)
    assert job.wait(30).state == "failed"


def test_the_layers_are_logged_once(small_data, reference_section, monkeypatch, caplog):
    monkeypatch.setattr(trainjob, "_announced", [])
    caplog.set_level("INFO", logger="grader.training")
    job = TrainingJob(reference_section, TrainSettings(steps=5), small_data)
    job.wait(60)
    trainjob._announce(job._run.layers)  # a second run says nothing more
    layers = [r.getMessage() for r in caplog.records if r.getMessage().startswith("training layer")]
    assert len(layers) == len(set(layers)) == len(job._run.layers) >= 6
    assert any(m.startswith("training layer seccomp: ") for m in layers)


def test_loop_advice_promises_a_speed_up_only_where_one_was_measured():
    from grader.feedback import voice as feedback

    faster = feedback.loop_advice(28, 2.8, 0.9, 500.0, 1555.0)
    assert faster.endswith("about 1,555 steps/s instead of 500 (3.1x faster).")
    even = feedback.loop_advice(28, 2.75, 2.23, 505.0, 535.0)  # a busy machine: 1.06x
    assert "faster" not in even and "steps/s" not in even
    assert even.startswith("`dC` is accumulated in a Python loop (line 28): measured here")
