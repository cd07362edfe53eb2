"""Whether a spare may warm up: the machine's CPU pressure (PSI), else its load average."""

from __future__ import annotations

import pytest

from grader.sandbox import pressure
from grader.sandbox.pressure import decide, some_avg10

QUIET = "some avg10=2.50 avg60=1.00 avg300=0.50 total=1000\nfull avg10=0.00 avg60=0.00 total=0\n"
BUSY = "some avg10=39.28 avg60=17.23 avg300=15.67 total=37838817896\nfull avg10=0.00 total=0\n"

CASES = [
    ("quiet", QUIET, 0.1, 2, True),
    ("busy", BUSY, 0.1, 2, False),  # PSI speaks, the load average is not read
    ("quiet, a high load", QUIET, 9.0, 2, True),
    ("at the limit", "some avg10=10.00 avg60=0 avg300=0 total=0", 0.1, 2, False),
    ("unreadable, low load", None, 0.9, 2, True),
    ("unreadable, high load", None, 1.0, 2, False),
    ("no some line, low load", "full avg10=0.00 avg60=0.00 avg300=0.00 total=0", 0.2, 1, True),
    ("no some line, high load", "full avg10=0.00 avg60=0.00 avg300=0.00 total=0", 0.6, 1, False),
    ("garbled figure, high load", "some avg10=many avg60=0 total=0", 3.0, 2, False),
    ("empty file, low load", "", 0.0, 4, True),
]


@pytest.mark.parametrize(("text", "load", "cpus", "warm"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_a_spare_warms_up_only_when_the_machine_has_cpu_to_spare(text, load, cpus, warm):
    assert decide(text, lambda: load / cpus) is warm


def test_the_load_average_is_asked_only_without_a_pressure_figure():
    asked = []
    assert decide(QUIET, lambda: asked.append(1) or 0.0) is True
    assert asked == []


FIGURES = [(QUIET, 2.5), (BUSY, 39.28), (None, None), ("some avg60=1.00 total=0", None),
           ("\nsome avg10=7 total=0", 7.0)]  # fmt: skip


@pytest.mark.parametrize(("text", "figure"), FIGURES)
def test_some_avg10_is_read_from_the_some_line(text, figure):
    assert some_avg10(text) == figure


def test_the_pressure_file_is_read_each_time(monkeypatch, tmp_path):
    path = tmp_path / "cpu"
    monkeypatch.setattr(pressure, "PRESSURE", path)
    monkeypatch.setattr(pressure.os, "getloadavg", lambda: (99.0, 0.0, 0.0))
    assert pressure.spare_cpu() is False  # missing: the load average decides
    path.write_text(QUIET)
    assert pressure.spare_cpu() is True
    path.write_text(BUSY)
    assert pressure.spare_cpu() is False
