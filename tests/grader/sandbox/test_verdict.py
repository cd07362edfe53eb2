"""How an exit report and a result stream become a status."""

from __future__ import annotations

import signal

import pytest

from grader.sandbox import CaseOutcome, LearnerError
from grader.sandbox.codec import Stream
from grader.sandbox.verdict import judge

from .conftest import LIMITS

CLEAN = {"kind": "exit", "code": 0, "signal": None, "cpu": 0.01, "killed": None}


def _case(kind: str, message: str = "") -> CaseOutcome:
    return CaseOutcome("a", LearnerError(kind, message, 1, ""), {}, "")


@pytest.mark.parametrize(
    ("report", "stream", "status"),
    [
        ({}, Stream(True, True), "ok"),
        ({}, Stream(True, True, [_case("ValueError")]), "ok"),
        ({}, Stream(True, True, [_case("SystemExit")]), "exited"),
        ({}, Stream(True, True, [_case("AutogradForbidden")]), "forbidden"),
        ({}, Stream(True, True, [_case("OutputLimitExceeded")]), "output_limit"),
        ({}, Stream(True, True, [_case("MemoryError")]), "memory_limit"),
        ({}, Stream(True, True, [_case("PermissionError", "[Errno 1] no")]), "forbidden"),
        ({}, Stream(True, True, [_case("PermissionError", "[Errno 13] no")]), "ok"),
        ({"killed": "wall", "signal": 9}, Stream(True), "wall_limit"),
        ({"signal": signal.SIGXCPU, "cpu": 1.0}, Stream(True), "cpu_limit"),
        ({"signal": signal.SIGKILL, "cpu": 1.0}, Stream(True), "cpu_limit"),
        ({"signal": signal.SIGXCPU, "cpu": 0.84}, Stream(True), "cpu_limit"),  # a busy machine
        ({"signal": signal.SIGXCPU, "cpu": 0.01}, Stream(True), "crashed"),
        ({"signal": signal.SIGKILL}, Stream(True), "crashed"),
        ({"signal": signal.SIGSEGV}, Stream(True, True), "crashed"),
        ({"signal": signal.SIGSYS}, Stream(True), "forbidden"),
        ({}, Stream(True), "no_result"),
        ({"code": 86}, Stream(True), "no_result"),
        ({"code": 87}, Stream(True), "no_result"),
        ({}, Stream(True, True, error="bad"), "malformed"),
        ({}, Stream(True, error="bad"), "malformed"),
        ({}, Stream(), "internal"),
        ({}, Stream(True, internal="setup"), "no_result"),
        ({"error": "fork failed"}, Stream(), "internal"),
        ({"killed": "parent"}, Stream(True, True), "internal"),
        # Stopped after its stream ended or was refused: the SIGKILL and CPU time are ours.
        ({"killed": "stop", "signal": 9, "cpu": 1.0}, Stream(True, error="bad"), "malformed"),
        ({"killed": "stop", "signal": 9, "cpu": 1.0}, Stream(True), "no_result"),
        ({"killed": "stop", "signal": 9}, Stream(), "internal"),
    ],
)
def test_statuses(report, stream, status):
    got, message, log = judge(CLEAN | report, stream, LIMITS)
    assert got == status
    assert (message == "") == (status == "ok")
    assert log


def test_messages_speak_to_the_learner():
    _, message, _ = judge(CLEAN | {"signal": signal.SIGSEGV}, Stream(True), LIMITS)
    assert message == "Your code crashed the worker (SIGSEGV)."
    _, message, _ = judge(CLEAN, Stream(True, True, [_case("AutogradForbidden")]), LIMITS)
    assert "autograd" in message
