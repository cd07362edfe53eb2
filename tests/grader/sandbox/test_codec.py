"""The parent trusts nothing a worker sends: every malformed frame is rejected."""

from __future__ import annotations

import os
import time

import pytest
import torch

from grader.sandbox import Case
from grader.sandbox.codec import Stream, accept, encode_job, read_stream
from grader.sandbox.protocol import Frame, write_frame

from .conftest import LIMITS

CASES = [Case("lecture", {}, {}, ("dx", "dy"))]
GOOD = {
    "kind": "case",
    "name": "lecture",
    "error": None,
    "stdout": "hi\n",
    "returned": {"dx": {"dtype": "float32", "shape": [2], "blob": 0}, "dy": {"problem": "nope"}},
}
BLOB = memoryview(bytearray(torch.tensor([1.5, -2.0]).numpy().tobytes()))
ERROR = {"type": "NameError", "message": "name 'q' is not defined", "line": 3, "traceback": "t"}


def _feed(*frames: Frame) -> Stream:
    stream = Stream()
    accept(stream, Frame({"kind": "ready"}), CASES, LIMITS)
    for frame in frames:
        accept(stream, frame, CASES, LIMITS)
    return stream


def test_a_good_case_is_rebuilt():
    stream = _feed(Frame(GOOD | {"error": ERROR}, (BLOB,)), Frame({"kind": "done"}))
    case = stream.cases[0]
    assert stream.done and case.stdout == "hi\n" and case.error.line == 3
    assert torch.equal(case.returned["dx"].tensor, torch.tensor([1.5, -2.0]))
    assert case.returned["dy"].problem == "nope"


def test_missing_outputs_are_not_defined():
    case = _feed(Frame(GOOD | {"returned": {}})).cases[0]
    assert case.returned["dx"].problem == "is not defined"


@pytest.mark.parametrize(
    ("change", "blobs"),
    [
        ({"name": "other"}, (BLOB,)),
        ({"extra": 1}, (BLOB,)),
        ({"stdout": 3}, (BLOB,)),
        ({"returned": {"dz": {"problem": "x"}}}, ()),
        ({"returned": {"dx": {"dtype": "complex64", "shape": [1], "blob": 0}}}, (BLOB,)),
        ({"returned": {"dx": {"dtype": "float32", "shape": [3], "blob": 0}}}, (BLOB,)),
        ({"returned": {"dx": {"dtype": "float32", "shape": [-2, -1], "blob": 0}}}, (BLOB,)),
        ({"returned": {"dx": {"dtype": "float32", "shape": [2], "blob": True}}}, (BLOB,)),
        ({"returned": {"dx": {"dtype": "float32", "shape": [2], "blob": 1}}}, (BLOB,)),
        ({"returned": {"dx": {"dtype": "float32", "shape": [2]}}}, (BLOB,)),
        ({}, (BLOB, BLOB)),
        ({"error": {"type": "E"}}, (BLOB,)),
        ({"error": ERROR | {"line": "3"}}, (BLOB,)),
    ],
)
def test_malformed_case_frames_are_rejected(change, blobs):
    with pytest.raises(ValueError):
        _feed(Frame(GOOD | change, blobs))


@pytest.mark.parametrize(
    "entry",
    [
        {"dtype": "float32", "shape": [2**70, 0], "blob": 0},
        {"dtype": "float32", "shape": [0, 2**62, 2**62], "blob": 0},
        {"dtype": "float32", "shape": [[2]], "blob": 0},
        {"dtype": "float32", "shape": [2], "blob": "0"},
        {"dtype": ["float32"], "shape": [2], "blob": 0},
    ],
)
def test_hostile_entries_never_raise_in_the_parent(entry):
    r, w = os.pipe()
    write_frame(w, {"kind": "ready"})
    write_frame(w, GOOD | {"returned": {"dx": entry}}, [b""])
    os.close(w)
    stream = read_stream(r, CASES, LIMITS, time.monotonic() + 5)
    os.close(r)
    assert stream.ready and not stream.cases and stream.error


def test_out_of_place_frames_are_rejected():
    with pytest.raises(ValueError):
        accept(Stream(), Frame({"kind": "case"}), CASES, LIMITS)
    with pytest.raises(ValueError):
        _feed(Frame({"kind": "done"}), Frame(GOOD, (BLOB,)))
    with pytest.raises(ValueError):
        _feed(Frame(GOOD, (BLOB,)), Frame(GOOD, (BLOB,)))
    with pytest.raises(ValueError):
        _feed(Frame({"kind": "mystery"}))


def test_returned_bytes_are_capped():
    big = memoryview(bytearray(LIMITS.result_bytes + 4))
    entry = {"dtype": "uint8", "shape": [LIMITS.result_bytes + 4], "blob": 0}
    with pytest.raises(ValueError, match="result_bytes"):
        _feed(Frame(GOOD | {"returned": {"dx": entry}}, (big,)))


def test_jobs_carry_tensors_as_bytes():
    x = torch.arange(6, dtype=torch.int64).reshape(2, 3).T
    header, blobs = encode_job("y = x", [Case("a", {"x": x}, {"n": 2}, ("y",))], LIMITS)
    spec = header["cases"][0]
    assert spec["tensors"] == [{"name": "x", "blob": 0, "dtype": "int64", "shape": [3, 2]}]
    assert bytes(blobs[0]) == x.contiguous().numpy().tobytes()
    assert spec["values"] == {"n": 2} and spec["outputs"] == ["y"]


def test_whatever_breaks_decoding_rejects_the_stream(monkeypatch):
    from grader.sandbox import codec

    def broken(*args):
        raise KeyError("a bug in the parent")

    monkeypatch.setattr(codec, "decode_case", broken)
    r, w = os.pipe()
    write_frame(w, {"kind": "ready"})
    write_frame(w, GOOD, [BLOB])
    os.close(w)
    stream = read_stream(r, CASES, LIMITS, time.monotonic() + 5)
    os.close(r)
    assert stream.internal is None
    assert stream.error == "KeyError: 'a bug in the parent'"
