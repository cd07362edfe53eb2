"""The worker seen from inside: what learner code finds around it when it looks."""

from __future__ import annotations

import json
import os

import pytest

from .conftest import LIMITS

LOOK = r"""
import json, os, resource
facts = {
    "fds": sorted(int(f) for f in os.listdir("/proc/self/fd")),
    "limits": {
        name: resource.getrlimit(getattr(resource, "RLIMIT_" + name.upper()))
        for name in ("core", "cpu", "as", "fsize", "nofile", "nproc")
    },
    "threads": torch.get_num_threads(),
    "env": dict(os.environ),
    "cwd": os.listdir("."),
    "leader": os.getsid(0) == os.getpid(),
    "uid": os.getuid(),
}
print(json.dumps(facts))
y = x
"""


@pytest.fixture(scope="module")
def facts(sandbox):
    import torch

    from grader.sandbox import Case

    case = Case("lecture", {"x": torch.zeros(2)}, {"n": 3}, ("y",))
    outcome = sandbox.run(LOOK, [case])
    assert outcome.status == "ok", outcome
    return json.loads(outcome.cases[0].stdout)


def test_only_stdio_and_the_result_pipe_are_open(facts):
    # 0-2 lead to /dev/null, 3 is the result pipe; the listing itself holds one more.
    assert len(facts["fds"]) <= 5 and max(facts["fds"]) <= 4, facts["fds"]


def test_limits_are_set_and_no_core_file_can_be_written(facts):
    limits = facts["limits"]
    assert limits["core"] == [0, 0]
    assert limits["cpu"][0] == LIMITS.cpu_seconds and limits["cpu"][1] <= LIMITS.cpu_seconds + 1
    assert 0 < limits["as"][0] == limits["as"][1] < 64 * 1024**3
    assert 0 < limits["fsize"][1] <= 16 * 1024**2 and 0 < limits["nofile"][1] <= 256
    if os.geteuid() == 0:
        assert 0 < limits["nproc"][1] <= 64, "processes are limited after the uid drop"


def test_one_thread_an_empty_environment_and_an_empty_work_dir(facts):
    assert facts["threads"] == 1
    assert facts["env"] == {} and facts["cwd"] == []
    assert facts["leader"], "the worker leads a session of its own"


def test_the_worker_is_not_root_nor_the_servers_uid(facts, sandbox):
    if sandbox.layers()["uid"] != "on":
        pytest.skip("the uid layer needs root, or newuidmap and a range in /etc/subuid")
    assert facts["uid"] not in (0, os.getuid())


def test_a_spare_never_becomes_dumpable_to_ask_for_oom_first():
    """Without root, a dumpable spare could be reached by another run's worker of its uid
    before its syscall filter is in (confine._oom_first). Run in a child of this test, so that
    the test's own process keeps its OOM score."""
    from grader.sandbox import confine

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # our own code only: the function under test, with prctl recorded
        calls = []
        confine.seccomp.prctl = lambda *args: calls.append(list(args))
        confine._oom_first()
        os.write(write, json.dumps(calls).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        calls = json.loads(answer.read() or "null")
    os.waitpid(pid, 0)
    assert calls is not None, "the child that ran _oom_first did not answer"
    assert [confine.PR_SET_DUMPABLE, 1] not in calls


def test_the_address_space_limit_starts_from_the_kernels_vmsize():
    """confine.vm_size (read from /proc/self/statm) is the VmSize of /proc/self/status."""
    from grader.sandbox import confine

    def status() -> int:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))

    before, size, after = status(), confine.vm_size(), status()
    assert size % confine.PAGE == 0
    assert min(before, after) <= size <= max(before, after)


def test_a_spare_asks_to_be_picked_first_where_it_may():
    """As root a spare's OOM score becomes 1000; without root it keeps its parent's."""
    from grader.sandbox import confine

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        confine._oom_first()
        with open("/proc/self/oom_score_adj") as f:
            os.write(write, f.read().strip().encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        score = answer.read()
    os.waitpid(pid, 0)
    with open("/proc/self/oom_score_adj") as f:
        ours = f.read().strip()
    assert score == ("1000" if os.geteuid() == 0 else ours)
