"""bench/suite_chains.py adds up each test process's chain of a two-process run."""

from __future__ import annotations

import pytest

from .scripts import import_script

OUTPUT = """\
tests/e2e/test_a.py::test_one
[gw1] [  0%] PASSED tests/e2e/test_a.py::test_one
[gw0] [ 25%] PASSED tests/grader/test_b.py::test_two[a-b]
[gw1] [ 50%] FAILED tests/deploy/test_compose.py::test_three
[gw0] [ 75%] PASSED tests/grader/sandbox/test_unprivileged.py::test_four
======= 1 failed, 3 passed in 600.00s (0:10:00) =======
"""

JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.e2e.test_a" name="test_one" time="240.0" />
<testcase classname="tests.grader.test_b" name="test_two[a-b]" time="60.0" />
<testcase classname="tests.deploy.test_compose" name="test_three" time="120.0" />
<testcase classname="tests.grader.sandbox.test_unprivileged" name="test_four" time="180.0" />
</testsuite></testsuites>"""


@pytest.fixture
def chains(monkeypatch):
    """Import bench/suite_chains.py (a script)."""
    return import_script("suite_chains", monkeypatch)


def test_each_process_gets_its_files_minutes_by_group(chains):
    found = chains.chains(OUTPUT, JUNIT)
    assert found == {
        "gw0": {"other files": 1.0, "the ordinary user's re-run": 3.0},
        "gw1": {"browser tests": 4.0, "container tests": 2.0},
    }


def test_the_table_says_what_each_process_waited_of_the_run(chains):
    table = chains.report(OUTPUT, JUNIT)
    assert "| gw0 | **its tests in all**; waiting or idle 6.00 of the run's 10.00 | **4.00** |" in (
        table
    )
    assert "| gw1 | **its tests in all**; waiting or idle 4.00 of the run's 10.00 | **6.00** |" in (
        table
    )


def test_a_file_with_a_host_wide_test_is_in_the_host_wide_files(chains):
    assert chains.group_of("tests/grader/sandbox/test_hostile.py") == "host-wide files"
    assert chains.group_of("tests/grader/sandbox/test_run.py") == "other files"
