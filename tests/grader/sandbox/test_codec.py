"""The parent trusts nothing a worker sends: every malformed frame is rejected."""

from __future__ import annotations

import os
import time

import pytest
import torch

from grader.sandbox import Case
from grader.sandbox.codec import Stream, accept, encode_job, read_stream
from grader.sandbox.protocol import Frame, write_frame
from grader.sandbox.tensorwire import pack, unpack, views

from .conftest import LIMITS
from .test_tensorwire import FORGED

CASES = [Case("lecture", {}, {}, ("dx", "dy"))]
GOOD = {
    "kind": "case",
    "name": "lecture",
    "error": None,
    "stdout": "hi\n",
    "returned": {"dy": {"problem": "nope"}},
}
BLOB = memoryview(pack({"dx": torch.tensor([1.5, -2.0])}))
EMPTY = memoryview(pack({}))
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


def test_a_workers_pieces_are_read_as_one_buffer():
    pieces = tuple(views({"dx": torch.tensor([1.5, -2.0])}))
    case = _feed(Frame(GOOD, pieces)).cases[0]
    assert torch.equal(case.returned["dx"].tensor, torch.tensor([1.5, -2.0]))


def test_missing_outputs_are_not_defined():
    case = _feed(Frame(GOOD | {"returned": {}}, (EMPTY,))).cases[0]
    assert case.returned["dx"].problem == "is not defined"
    assert case.returned["dy"].problem == "is not defined"


def _blob(**tensors: torch.Tensor) -> memoryview:
    return memoryview(pack(tensors))


@pytest.mark.parametrize(
    ("change", "blobs"),
    [
        ({"name": "other"}, (BLOB,)),
        ({"extra": 1}, (BLOB,)),
        ({"stdout": 3}, (BLOB,)),
        ({"returned": {"dz": {"problem": "x"}}}, (EMPTY,)),
        ({"returned": {"dx": {"problem": "x"}}}, (BLOB,)),  # a tensor and a problem
        ({"returned": {"dy": {"problem": 3}}}, (BLOB,)),
        ({"returned": {"dy": {"problem": "x", "dtype": "float32"}}}, (BLOB,)),
        ({"returned": {"dy": None}}, (BLOB,)),
        ({"returned": []}, (BLOB,)),
        ({}, ()),
        ({}, (BLOB, BLOB)),
        ({}, (BLOB, EMPTY)),
        ({}, tuple(views({"dx": torch.ones(2)}))[1:]),
        ({}, (_blob(dz=torch.ones(2)),)),  # not an output
        ({}, (_blob(dx=torch.ones(2), dz=torch.ones(2)),)),
        ({}, (_blob(dy=torch.ones(2)),)),  # also named a problem in the header
        ({}, (_blob(dx=torch.ones(2, dtype=torch.complex64)),)),
        ({}, (BLOB[:-1],)),
        ({"error": {"type": "E"}}, (BLOB,)),
        ({"error": ERROR | {"line": "3"}}, (BLOB,)),
    ],
)
def test_malformed_case_frames_are_rejected(change, blobs):
    with pytest.raises(ValueError):
        _feed(Frame(GOOD | change, blobs))


@pytest.mark.parametrize(
    "blob",
    [forged for forged, _ in FORGED] + [b"", b"\0" * 8, b"\xff" * 64],
)
def test_forged_tensor_blobs_reject_the_stream_without_raising(blob):
    r, w = os.pipe()
    write_frame(w, {"kind": "ready"})
    write_frame(w, GOOD, [blob])
    os.close(w)
    stream = read_stream(r, CASES, LIMITS, time.monotonic() + 5)
    os.close(r)
    assert stream.ready and not stream.cases and stream.error.startswith("ValueError")


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
    big = _blob(dx=torch.zeros(LIMITS.result_bytes + 4, dtype=torch.uint8))
    with pytest.raises(ValueError, match="result_bytes"):
        _feed(Frame(GOOD, (big,)))


def test_returned_bytes_count_the_tensors_not_the_buffer_header():
    exact = _blob(dx=torch.zeros(LIMITS.result_bytes, dtype=torch.uint8))
    case = _feed(Frame(GOOD, (exact,))).cases[0]
    assert case.returned["dx"].tensor.nbytes == LIMITS.result_bytes


def test_jobs_carry_each_cases_tensors_as_one_blob():
    x = torch.arange(6, dtype=torch.int64).reshape(2, 3).T
    cases = [Case("a", {"x": x}, {"n": 2}, ("y",)), Case("b", {}, {}, ("y",))]
    header, blobs = encode_job("y = x", cases, LIMITS)
    assert header["cases"][0] == {"name": "a", "values": {"n": 2}, "outputs": ["y"]}
    assert len(blobs) == 2 and unpack(blobs[1]) == {}
    assert torch.equal(unpack(blobs[0])["x"], x)


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
