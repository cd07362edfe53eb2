"""Autograd references: trained once per configuration in a subprocess, cached, never orphaned."""

from __future__ import annotations

import time

import pytest

import data
from grader.training.records import TrainSettings
from grader.training.references import References

QUICK = TrainSettings(steps=200, decay_step=100)


def _wait(refs: References, dataset, settings: TrainSettings, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while (status := refs.status(dataset, settings)).state == "running":
        assert time.monotonic() < deadline, "the reference did not finish in time"
        time.sleep(0.1)
    return status


@pytest.fixture
def refs(tmp_path, model):
    references = References(tmp_path, model)
    yield references
    references.close()


def test_a_reference_is_trained_once_then_read_from_disk(refs, tmp_path, small_data):
    first = refs.status(small_data, QUICK)
    assert first.state == "running" and first.steps == 200
    done = _wait(refs, small_data, QUICK)
    assert done.state == "done" and done.step == 200 and len(done.curve) == 200
    assert refs._jobs[refs.key(small_data, QUICK)].proc.wait(timeout=30) == 0
    assert len(done.evaluation.samples) == 20 and done.steps_per_s > 0
    again = References(tmp_path, refs.model).status(small_data, QUICK, start=False)
    assert again == done
    assert list(tmp_path.glob("*.job.json")) == []


def test_a_missing_reference_is_not_started_unless_asked(refs, default_data):
    assert refs.status(default_data, QUICK, start=False).state == "missing"


def test_the_key_follows_the_dataset_and_the_settings(refs, default_data):
    other_data = data.build_dataset(["ann", "bob", "cyd"] * 20, 3, name="tiny")
    keys = {
        refs.key(default_data, QUICK),
        refs.key(default_data, TrainSettings(steps=200, decay_step=100, seed=1)),
        refs.key(other_data, QUICK),
    }
    assert len(keys) == 3


def test_close_kills_a_reference_still_training(refs, default_data):
    long = TrainSettings(steps=1_000_000)
    refs.status(default_data, long)
    proc = refs._jobs[refs.key(default_data, long)].proc
    refs.close()
    assert proc.poll() is not None


def test_a_reference_exits_when_its_parent_goes_away(refs, default_data):
    long = TrainSettings(steps=1_000_000)
    refs.status(default_data, long)
    proc = refs._jobs[refs.key(default_data, long)].proc
    proc.stdin.close()  # what this process's death does to the pipe
    assert proc.wait(timeout=30) != 0
