"""The replica's metrics (app/services/metrics.py), read as Prometheus reads them: the text of
`exposition()` parsed by prometheus_client's own parser. The registry is the process's, so each
test compares what it did with what was there before it. Served by a real server:
tests/e2e/test_operations.py."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.services import metrics
from grader.sandbox import Load


def scrape() -> dict[str, float]:
    """Return every sample of the exposition: `name{label="value",...}` -> value."""
    found = {}
    for family in text_string_to_metric_families(metrics.exposition().decode()):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return found


def moved(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """Return the ninja_ samples that changed, by how much."""
    return {
        k: after[k] - before.get(k, 0.0)
        for k in after
        if k.startswith("ninja_") and after[k] != before.get(k, 0.0)
    }


@pytest.fixture
def live(monkeypatch):
    """Return the live gauges' readers, put back after the test."""
    for name in ("sandbox", "runs", "sessions"):
        monkeypatch.setattr(metrics.LIVE, name, getattr(metrics.LIVE, name))
    return metrics.LIVE


def test_verdicts_sign_ins_and_errors_are_counted_by_kind():
    before = scrape()
    metrics.graded("solved", 0.02)
    metrics.graded("not_solved", 0.2)
    metrics.graded("busy", 0.001)  # nothing graded: not timed
    metrics.graded("grader_failed", 0.03)  # an error too
    metrics.graded("solved", 0.0)  # recorded untimed (Exercise 4's gradient check)
    metrics.signed_in()
    metrics.failed("database")
    metrics.script_failed(RuntimeError("a page's bug"))
    assert (
        moved(before, scrape())
        == pytest.approx(
            {
                'ninja_gradings_total{outcome="solved"}': 2,
                'ninja_gradings_total{outcome="not_solved"}': 1,
                'ninja_gradings_total{outcome="busy"}': 1,
                'ninja_gradings_total{outcome="grader_failed"}': 1,
                "ninja_grading_seconds_count": 3,
                "ninja_grading_seconds_sum": 0.25,
                'ninja_grading_seconds_bucket{le="0.025"}': 1,  # 0.02
                'ninja_grading_seconds_bucket{le="0.05"}': 2,  # and 0.03
                'ninja_grading_seconds_bucket{le="0.1"}': 2,
                **{f'ninja_grading_seconds_bucket{{le="{le}"}}': 3 for le in metrics.SECONDS[5:]},
                'ninja_grading_seconds_bucket{le="+Inf"}': 3,
                "ninja_sign_ins_total": 1,
                'ninja_errors_total{kind="grader"}': 1,
                'ninja_errors_total{kind="database"}': 1,
                'ninja_errors_total{kind="page"}': 1,
            }
        )
    )


def test_the_live_gauges_are_read_at_each_scrape(live):
    live.sandbox = lambda: Load(slots=2, busy=1, waiting=3, alive=2)
    live.runs = lambda: {"running": 1, "finished": 4}
    live.sessions = lambda: 7
    found = scrape()
    assert found["ninja_sandbox_slots"] == 2 and found["ninja_sandbox_slots_busy"] == 1
    assert found["ninja_sandbox_queue_depth"] == 3 and found["ninja_sandbox_zygotes_alive"] == 2
    runs = {k: v for k, v in found.items() if k.startswith("ninja_training_runs")}
    assert runs == {
        f'ninja_training_runs{{state="{s}"}}': {"running": 1, "finished": 4}.get(s, 0)
        for s in metrics.RUN_STATES
    }
    assert found["ninja_active_sessions"] == 7
    live.sessions = lambda: 8
    assert scrape()["ninja_active_sessions"] == 8


def test_a_reader_that_fails_leaves_only_its_gauges_out(live, caplog):
    def runs() -> dict[str, int]:
        raise ConnectionError("the database is down")

    live.runs, live.sessions, live.sandbox = runs, lambda: 3, lambda: None
    found = scrape()
    gauges = ("ninja_training_runs", "ninja_sandbox_slots", "ninja_sandbox_queue_depth")
    assert not any(k.startswith(gauges) for k in found)
    assert found["ninja_active_sessions"] == 3 and "ninja_gradings_total" in str(found)
    assert "runs left out of this scrape: the database is down" in caplog.text


def test_a_sandboxs_waits_are_timed_once_however_often_it_is_watched():
    class Watched:  # what the metrics ask of a sandbox: watch(on_wait)
        def __init__(self) -> None:
            self.watchers: list = []

        def watch(self, on_wait) -> None:
            self.watchers.append(on_wait)

    sandbox = Watched()
    metrics.watch(sandbox)
    metrics.watch(sandbox)
    before = scrape()
    for on_wait in sandbox.watchers:
        on_wait(0.004)
    assert len(sandbox.watchers) == 1
    assert moved(before, scrape())["ninja_sandbox_wait_seconds_count"] == 1
