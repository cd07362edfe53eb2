"""Each limit ends the run with its own status and message, and the next run is unaffected."""

from __future__ import annotations

import pytest
import torch

from grader.sandbox import Limits

from .conftest import LIMITS

# CPU runs out first, even under load: a loop that ignores SIGXCPU runs to the hard limit (2 s
# of CPU), which at load 10 on two cores took more than 10 s of wall time (a fifth of a core)
PATIENT = Limits(**{**LIMITS.__dict__, "wall_seconds": 30})


def test_infinite_loop_hits_the_cpu_limit(run, honest):
    outcome = run("while True:\n    pass", limits=PATIENT)
    assert outcome.status == "cpu_limit"  # not wall_limit: the CPU limit ended it
    assert outcome.message == "Your code did not finish within 1 s. Check for an infinite loop."
    honest()


def test_ignoring_sigxcpu_still_hits_the_cpu_limit(run, honest):
    code = "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass"
    assert run(code, limits=PATIENT).status == "cpu_limit"
    honest()


def test_sleeping_hits_the_wall_limit(run, honest):
    outcome = run("import time\ntime.sleep(100)")
    assert outcome.status == "wall_limit" and "within 2 s" in outcome.message
    honest()


@pytest.mark.parametrize(
    "code",
    ["y = torch.empty(10**12)", "y = torch.ones(200_000_000)", "b = bytearray(2 * 1024**3)"],
)
def test_huge_allocations_hit_the_memory_limit(run, honest, code):
    outcome = run(code)
    assert outcome.status == "memory_limit"
    assert outcome.message.startswith("Your code ran out of memory")
    honest()


def test_modest_overflow_of_output_is_truncated_with_a_note(run):
    outcome = run("print('x' * 10000)\ny = x")
    assert outcome.status == "ok"
    stdout = outcome.cases[0].stdout
    assert stdout.startswith("x" * LIMITS.output_bytes)
    assert "[output truncated: 5905 more characters not shown]" in stdout
    assert len(stdout) < LIMITS.output_bytes + 200


def test_a_gigabyte_of_printing_is_stopped(run, honest):
    outcome = run("for i in range(10**7):\n    print('x' * 100)")
    assert outcome.status == "output_limit"  # stopped, not left to print a gigabyte
    assert len(outcome.cases[0].stdout) < LIMITS.output_bytes + 200
    honest()


def test_writing_a_big_file_fails(run):
    error = run("open('big', 'wb').write(b'x' * 2 * 1024**2)").cases[0].error
    assert error.type == "OSError" and "File too large" in error.message


def test_opening_too_many_files_fails(run):
    code = "fs = [open('f%d' % i, 'w') for i in range(200)]"
    error = run(code).cases[0].error
    assert error.type == "OSError" and "Too many open files" in error.message


def test_output_beyond_ascii_survives_the_wire_with_controls_made_visible(run):
    outcome = run("print('😀\\u2028\\x00' * 3000)\ny = x")
    assert outcome.status == "ok"
    assert outcome.cases[0].stdout.startswith("😀\u2028\\x00" * 1000)


def test_a_result_near_the_cap_comes_back_whole(run):
    outcome = run("y = torch.arange(200_000, dtype=torch.float32)")
    assert outcome.status == "ok"
    assert torch.equal(outcome.cases[0].returned["y"].tensor, torch.arange(200_000.0))


# Files in the work dir (a tmpfs: memory) and the address space share one budget. Filling
# 60 MB of files and zeroing about 290 MB costs the kernel near 1 s of CPU on a busy machine
# (CI: 1.03 s), so these runs get CPU to spare: the memory limit is what they test.
ROOMY = Limits(**{**PATIENT.__dict__, "cpu_seconds": 10})
FILL = "for i in range(60):\n    open(str(i), 'wb').write(b'x' * 1000 * 1024)\n"


@pytest.mark.parametrize(("allocate", "status"), [(48, "memory_limit"), (160, "ok")])
def test_the_work_dir_counts_against_the_memory_limit(sandbox, run, allocate, status):
    if sandbox.layers().get("filesystem") != "on":
        pytest.skip("work dirs are their own tmpfs only with the filesystem layer")
    size = LIMITS.memory_bytes - allocate * 1024**2  # 60 MB of files + this: over or under
    outcome = run(FILL + f"b = bytearray({size})\ny = x", limits=ROOMY)
    assert outcome.status == status, outcome
