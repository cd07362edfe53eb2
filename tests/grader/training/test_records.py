"""Exercise 4's settings: the lecture's by default, checked, and what the loop reads."""

from __future__ import annotations

import pytest

from grader.training.records import PRESETS, TrainingStatus, TrainSettings


def test_the_defaults_are_the_lectures():
    s = TrainSettings()
    assert (s.steps, s.batch_size, s.learning_rate, s.decayed_rate, s.decay_step) == (
        200_000, 32, 0.1, 0.01, 100_000,
    )  # fmt: skip
    assert (s.seed, s.n_hidden, s.n_embd) == (2147483647, 200, 10)
    assert PRESETS["quick"] == TrainSettings(steps=20_000, decay_step=10_000)


def test_a_curve_point_averages_a_thousand_steps_like_the_lecture():
    assert TrainSettings().bucket == 1000
    assert TrainSettings(steps=150).bucket == 1


def test_the_loop_reads_the_batch_as_n_and_the_datasets_sizes():
    wire = TrainSettings(batch_size=64).wire(vocab_size=19, block_size=4)
    assert (wire["n"], wire["vocab_size"], wire["block_size"], wire["n_hidden"]) == (64, 19, 4, 200)


@pytest.mark.parametrize(
    "bad",
    [
        {"steps": 0},
        {"batch_size": 1},
        {"learning_rate": float("nan")},
        {"steps": 2.5},
        {"seed": -1},
        {"n_hidden": True},
    ],
)
def test_settings_out_of_range_are_refused(bad):
    with pytest.raises(ValueError, match=f"`{next(iter(bad))}` must be"):
        TrainSettings(**bad)


def test_a_status_is_active_only_while_starting_or_running():
    states = {s: TrainingStatus(s, 0, 1, 0.0, None, ()).active for s in
              ("starting", "running", "finished", "stopped", "failed")}  # fmt: skip
    assert states == {"starting": True, "running": True, "finished": False, "stopped": False,
                      "failed": False}  # fmt: skip
