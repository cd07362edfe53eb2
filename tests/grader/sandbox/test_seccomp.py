"""The syscall filter's program is well formed on every architecture it knows."""

from __future__ import annotations

import pytest

from grader.sandbox import seccomp


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
def test_program_checks_the_architecture_first_and_jumps_forward(machine):
    ops = seccomp.program(1234, machine)
    assert ops[0] == (seccomp.LD_W_ABS, 0, 0, seccomp.OFF_ARCH)
    assert ops[1][3] == seccomp.ARCHES[machine][1]
    assert ops[2] == (seccomp.RET, 0, 0, seccomp.RET_KILL_PROCESS)
    for i, (code, jt, jf, _) in enumerate(ops):
        if code & 0x07 == 0x05:  # BPF_JMP
            assert i + 1 + max(jt, jf) < len(ops)
    assert ops[-1][0] == seccomp.RET and len(ops) < 4096


def test_every_denied_call_is_in_the_program():
    ops = seccomp.program(1, "x86_64")
    checked = {k for code, _, _, k in ops if code == seccomp.JEQ}
    assert {nrs[0] for nrs in seccomp.DENIED.values()} <= checked
    assert 59 in checked and 41 in checked  # execve, socket


def test_aarch64_has_no_legacy_fork():
    ops = seccomp.program(1, "aarch64")
    checked = {k for code, _, _, k in ops if code == seccomp.JEQ}
    assert 57 not in checked and 221 in checked  # 57 is close on aarch64; 221 is execve
