"""Checks run after every hostile submission: nothing leaked, nothing changed, nothing left.

Used by grading/test_hostile_grading.py and sandbox/test_hostile.py.
"""

from __future__ import annotations

import builtins
import json
import os
import time
from pathlib import Path

import torch

from grader.grading.cases import LECTURE
from grader.sandbox.warmup import UID_BASE

ROOT = Path(__file__).resolve().parents[2]
SECRET_NAME, SECRET = "NINJA_TEST_SECRET", "hunter2-do-not-leak"
MARKERS = (ROOT / "pwned", Path("/tmp/pwned"), Path("/dev/shm/pwned"), Path.cwd() / "pwned")
INTACT = (torch.allclose, torch.equal, torch.Tensor.__eq__, builtins.abs)
# Shmem moves with other tests' work dirs on a shared machine; a leaked segment (the hostile
# cases ask for 1 MiB to 3 GiB) or a full 64 MiB work dir left mounted shows above this.
SHMEM_SLACK = 48 * 1024  # kB


def assert_nothing_leaked(result, honest: str, before: dict) -> None:
    """No secret, solution or reference in the result; no stray file; the parent unchanged."""
    assert SECRET not in json.dumps(result.to_dict())
    assert honest.strip().splitlines()[-1] not in result.stdout
    assert str(before["expected"][LECTURE]) not in result.stdout
    assert not [p for p in MARKERS if p.exists()]
    assert (torch.allclose, torch.equal, torch.Tensor.__eq__, builtins.abs) == INTACT
    assert_same(before, snapshot(before["prepared"]))


def snapshot(prepared) -> dict:
    """Return copies of an exercise's inputs and references, to notice any change."""
    tensors = {(c.name, k): t.clone() for c in prepared.cases for k, t in c.tensors.items()}
    expected = {k: t.clone() for k, t in prepared.expected.items()}
    return {"prepared": prepared, "tensors": tensors, "expected": expected}


def assert_same(before: dict, after: dict) -> None:
    """Assert that two snapshots hold equal tensors under the same names."""
    for part in ("tensors", "expected"):
        assert before[part].keys() == after[part].keys()
        assert all(torch.equal(before[part][k], after[part][k]) for k in before[part])


def zygote_pids(box) -> list[int]:
    """Return the pids of a sandbox's zygotes."""
    return [z.proc.pid for z in box._zygotes]


def assert_nothing_left_behind(box, zygotes: list[int], wait: float, host: tuple) -> None:
    """Wait for the workers to be reaped: the same zygotes alive, each with at most a spare;
    no SysV IPC object or shared memory beyond what the host held before (`host_ipc`)."""
    deadline = time.monotonic() + wait
    while (left := leftovers(zygotes)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left, left
    assert zygote_pids(box) == zygotes, "no zygote was restarted"
    assert all(os.path.exists(f"/proc/{pid}") for pid in zygotes)
    # A dead run's mount and IPC namespaces are torn down by the kernel after its last process
    # is reaped, asynchronously: wait for their pages to go, as for the processes above.
    deadline = time.monotonic() + wait
    while not below(held := host_ipc(), host) and time.monotonic() < deadline:
        time.sleep(0.1)
    count, shmem = held
    assert count <= host[0], "a SysV IPC object was left behind"
    assert shmem <= host[1] + SHMEM_SLACK, f"shared memory was left behind: {shmem - host[1]} kB"


def below(held: tuple[int, int], host: tuple[int, int]) -> bool:
    """Return whether the IPC objects and Shmem held now are within what the host held before."""
    return held[0] <= host[0] and held[1] <= host[1] + SHMEM_SLACK


def host_ipc() -> tuple[int, int]:
    """Return the number of SysV IPC objects this namespace sees and the host's Shmem in kB.

    A run's objects live in its own IPC namespace and die with it; Shmem (/proc/meminfo)
    counts every namespace's segments and tmpfs pages, so it shows any that outlive a run.
    """
    if os.environ.get("PYTEST_XDIST_WORKER") or os.environ.get("BPN_TESTS_LOCK"):
        # tests run beside others (tests/conftest.py): only with the lock held
        held = os.environ.get("BPN_TESTS_HOLD_THE_MACHINE")
        assert held, "a test that counts the machine's IPC must be marked host_wide"
    count = 0
    for kind in ("shm", "msg", "sem"):
        with open(f"/proc/sysvipc/{kind}") as f:
            count += len(f.read().splitlines()) - 1
    with open("/proc/meminfo") as f:
        shmem = next(int(ln.split()[1]) for ln in f if ln.startswith("Shmem:"))
    return count, shmem


def leftovers(zygotes: list[int]) -> list[str]:
    """Describe any process beyond one idle spare per zygote, or running as a worker's uid
    other than that spare (confined in advance: it holds the next run's uid while it waits).

    A zygote's PID namespace init (pid 1 inside, isolation.py) is not a leftover.
    """
    table = processes()
    problems = []
    for zygote in zygotes:
        children = [p for p, (ppid, _) in table.items() if ppid == zygote and not is_init(p)]
        grandchildren = [pid for pid, (ppid, _) in table.items() if ppid in children]
        if len(children) > 1 or grandchildren:
            problems.append(f"zygote {zygote}: children {children}, grandchildren {grandchildren}")
    workers = {UID_BASE + z: z for z in zygotes}
    problems += [
        f"worker {pid} still runs"
        for pid, (ppid, uid) in table.items()
        if uid in workers and not (ppid == workers[uid] and idle_spare(pid))
    ]
    return problems


def idle_spare(pid: int) -> bool:
    """Return whether a zygote's child is a spare waiting for its run: asleep on its payload
    pipe (a run that lingers is running, or asleep elsewhere). Where the sleep's place cannot
    be read (without root, a worker of another uid is not ours to inspect), asleep suffices."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    try:
        wchan = Path(f"/proc/{pid}/wchan").read_text().strip()
    except OSError:
        wchan = ""
    return state == "S" and ("pipe_read" in wchan or wchan in ("", "0"))  # "0": hidden from us


def is_init(pid: int) -> bool:
    """Return whether pid is pid 1 of a PID namespace (a zygote's init)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return any(ln.startswith("NSpid:") and ln.split()[-1] == "1" for ln in status.splitlines())


def processes() -> dict[int, tuple[int, int]]:
    """Return pid -> (parent pid, uid) for every process, read from /proc."""
    table = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if "PPid" in fields and "Uid" in fields:
            table[int(entry)] = (int(fields["PPid"]), int(fields["Uid"].split()[0]))
    return table
