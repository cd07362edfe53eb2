"""The streaming training worker, for real: it runs confined, streams, stops, and leaves nothing."""

from __future__ import annotations

import os
import signal
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from grader.sandbox import Limits
from grader.sandbox.tensorwire import pack
from grader.sandbox.training.stream import StreamRun
from grader.sandbox.training.wire import Failed, Metrics, Params, TrainStream, budget
from grader.training.model import lecture_model
from grader.training.records import TrainSettings

ROOT = Path(__file__).resolve().parents[4]
LIMITS = Limits(cpu_seconds=60, wall_seconds=60, memory_bytes=2 * 1024**3)


def _start(data, section: str, steps: int, limits: Limits = LIMITS) -> tuple[StreamRun, dict]:
    wire = TrainSettings(steps=steps, decay_step=steps // 2).wire(data.vocab_size, 3)
    header = {"code": section, "settings": wire, "output_bytes": limits.output_bytes}
    header["program"] = asdict(lecture_model().program())
    job = header, [pack({"Xtr": data.Xtr, "Ytr": data.Ytr})]
    run = StreamRun(job, limits, budget(wire, _shapes(wire), limits.output_bytes))
    run.launch()
    return run, wire


def _shapes(wire: dict) -> dict:
    """Return the shapes the parent expects back: the lecture model's, for these sizes."""
    return lecture_model().param_shapes(wire)


def _events(run: StreamRun, wire: dict, until=None) -> list:
    """Read and decode frames to the end of the stream, or until an event matches `until`."""
    stream, events = TrainStream(wire, _shapes(wire), LIMITS.output_bytes), []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            frame = run.next_frame(0.5)
        except EOFError:
            return events
        if frame is not None:
            events.append(stream.accept(frame))
            if until is not None and until(events[-1]):
                return events
    raise AssertionError("the stream did not end in time")


def children(pid: int) -> list[int]:
    """Return the pids whose parent is pid, leaving out a PID namespace's init (pid 1 inside)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            nspid = [ln for ln in (entry / "status").read_text().splitlines() if "NSpid" in ln]
        except (OSError, IndexError):
            continue
        if entry.name.isdigit() and int(fields[1]) == pid and nspid[0].split()[-1] != "1":
            found.append(int(entry.name))
    return found


def gone(pid: int, within: float = 5.0) -> bool:
    """Return whether pid has disappeared (or is a zombie) within some seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def _running(data, section: str) -> tuple[StreamRun, dict, int]:
    """Start a long run, wait for its first metrics; return it and the worker's pid."""
    run, wire = _start(data, section, steps=10**6)
    _events(run, wire, until=lambda e: isinstance(e, Metrics))
    (worker,) = children(run.pid)
    return run, wire, worker


def test_a_quick_run_streams_metrics_and_finishes(default_data, reference_section):
    in_inference_mode = "assert torch.is_inference_mode_enabled()\n"  # as the page's loop says
    run, wire = _start(default_data, reference_section + in_inference_mode, steps=600)
    events = _events(run, wire)
    report = run.finish()
    metrics = [e for e in events if isinstance(e, Metrics)]
    assert metrics and metrics[-1].step == 600 and sum(len(m.losses) for m in metrics) == 600
    assert isinstance(events[-2], Params) and events[-2].tensors["W1"].shape == (30, 200)
    assert report["code"] == 0 and report["killed"] is None
    if os.geteuid() == 0:
        assert set(run.layers.values()) == {"on"}, run.layers
    assert run.proc.poll() is not None


def test_stop_kills_the_worker_at_once_and_leaves_nothing(default_data, reference_section):
    run, _, worker = _running(default_data, reference_section)
    run.stop()
    assert gone(worker, within=2.0)
    report = run.finish()
    assert report["killed"] == "stop"
    assert gone(run.pid) and not children(run.pid)


def test_the_worker_dies_with_its_trainer(default_data, reference_section):
    run, _, worker = _running(default_data, reference_section)
    os.kill(run.pid, signal.SIGKILL)
    assert gone(worker)
    run.close()


def test_the_trainer_ends_the_run_when_its_parent_goes_away(default_data, reference_section):
    run, _, worker = _running(default_data, reference_section)
    run.sock.close()  # what this process's death does to the control socket
    assert gone(worker) and gone(run.pid)
    run.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="the filesystem and uid layers need root")
def test_the_worker_sees_no_solutions_and_no_network(default_data, reference_section):
    probe = (
        f"import os\nassert os.getuid() != 0\nassert not os.path.exists({str(ROOT)!r} + "
        "'/solutions')\nimport socket\nsocket.socket()\n"
    )
    run, wire = _start(default_data, reference_section + probe, steps=10)
    failed = next(e for e in _events(run, wire) if isinstance(e, Failed))
    run.finish()
    assert failed.error.type == "PermissionError" and failed.step == 0


def test_the_wall_limit_ends_a_stuck_run(default_data, reference_section):
    limits = Limits(cpu_seconds=5, wall_seconds=1.5)
    stuck = reference_section + "import time\ntime.sleep(60)\n"
    run, wire = _start(default_data, stuck, 10, limits)
    _events(run, wire)
    report = run.finish()
    assert report["killed"] == "wall" and gone(run.pid)


@pytest.mark.skipif(os.geteuid() != 0, reason="the work dir is a tmpfs only as root")
def test_the_worker_works_in_its_own_small_tmpfs(default_data, reference_section):
    probe = "import os\nassert os.statvfs('.').f_blocks * os.statvfs('.').f_frsize <= 64 * 2**20\n"
    run, wire = _start(default_data, reference_section + probe, steps=5)
    events = _events(run, wire)
    run.finish()
    assert isinstance(events[-2], Params), events[-2]
