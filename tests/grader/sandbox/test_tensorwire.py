"""Tensors cross as safetensors buffers: each allowed dtype round-trips, each forgery is refused."""

from __future__ import annotations

import json
import random
import struct

import pytest
import safetensors.torch
import torch

from grader.sandbox.records import DTYPES
from grader.sandbox.tensorwire import MAX_DIMS, pack, unpack, unpack_trusted, views


def _forge(header: dict | bytes, data: bytes = b"") -> bytes:
    """Return a safetensors buffer with this header (an object or its raw bytes) and data."""
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + data


def _entry(dtype: str, shape: list, start: int, end: int) -> dict:
    return {"dtype": dtype, "shape": shape, "data_offsets": [start, end]}


GOOD = pack({"x": torch.tensor([1.5, -2.0])})
TWO = b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
FORGED = [  # (buffer, what is wrong with it)
    (GOOD[:4], "header too small"),
    (GOOD[:20], "invalid header length"),
    (GOOD[:-1], "not fully covered"),
    (GOOD + b"\0", "not fully covered"),
    (struct.pack("<Q", 2**63) + b"{}", "header too large"),
    (_forge(b"[]"), "invalid JSON"),
    (_forge(b'{"a":' + b"[" * 500 + b"]" * 500 + b"}"), "recursion limit"),
    (_forge(b'{"\xff": 1}'), "UTF-8"),
    (_forge({"a": _entry("F32", [3], 4, 16)}, bytes(16)), "invalid offset"),
    (_forge({"a": _entry("F32", [1], 0, 4), "b": _entry("F32", [1], 0, 4)}, bytes(4)), "offset"),
    (_forge({"a": _entry("F32", [2], 0, 4)}, bytes(4)), "shape, data type, or offset"),
    (_forge({"a": _entry("F32", [2**62, 2**62], 0, 0)}), "overflow"),
    (_forge({"a": _entry("F32", [0, 2**63], 0, 0)}), "spans more than"),
    (_forge({"a": _entry("F32", [1] * (MAX_DIMS + 1), 0, 4)}, bytes(4)), "at most 16"),
    (_forge({"a": _entry("F32", [-1], 0, 0)}), "invalid JSON"),
    (_forge({"a": _entry("F32", [1.0], 0, 4)}, bytes(4)), "invalid JSON"),
    (_forge({"a": _entry("C64", [1], 0, 8)}, bytes(8)), "'C64' is not allowed"),
    (_forge({"a": _entry("U16", [1], 0, 2)}, bytes(2)), "'U16' is not allowed"),
    (_forge({"a": _entry("F8_E4M3", [1], 0, 1)}, bytes(1)), "is not allowed"),
    (_forge({"a": _entry("float32", [1], 0, 4)}, bytes(4)), "invalid JSON"),
    (_forge(TWO + b'"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', bytes(8)), "offset"),
    (_forge(TWO + b'"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', bytes(4)), "repeat"),
    (_forge({"__metadata__": {"k": "v"}, "a": _entry("F32", [1], 0, 4)}, bytes(4)), "besides"),
    (_forge({"a": {**_entry("F32", [1], 0, 4), "z": 1}}, bytes(4)), "wrong keys"),
    (_forge({"a b": _entry("F32", [1], 0, 4)}, bytes(4)), "not identifiers"),
    (_forge({"": _entry("F32", [1], 0, 4)}, bytes(4)), "not identifiers"),
]


@pytest.mark.parametrize(("blob", "why"), FORGED, ids=[why for _, why in FORGED])
def test_a_forged_buffer_is_refused_with_its_reason(blob, why):
    with pytest.raises(ValueError, match=why):
        unpack(blob)


def test_random_damage_is_refused_or_yields_only_valid_tensors():
    good = pack({"a": torch.arange(6.0).reshape(2, 3), "b": torch.ones(4, dtype=torch.int64)})
    rng = random.Random(0)
    refused = 0
    for _ in range(2000):
        blob = bytearray(good[: rng.randrange(len(good) + 1)] if rng.random() < 0.2 else good)
        for _ in range(rng.randrange(1, 4)):
            if blob:
                blob[rng.randrange(len(blob))] = rng.randrange(256)
        try:
            tensors = unpack(bytes(blob))
        except ValueError:
            refused += 1
            continue
        assert all(n.isidentifier() for n in tensors)
        assert all(t.dtype in DTYPES.values() and t.dim() <= MAX_DIMS for t in tensors.values())
    assert refused > 1000


WRITERS = {"pack": pack, "views": views}


@pytest.mark.parametrize("writer", WRITERS.values(), ids=list(WRITERS))
@pytest.mark.parametrize("dtype", DTYPES.values(), ids=list(DTYPES))
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (2, 3), (4, 1, 5)], ids=str)
def test_every_allowed_dtype_round_trips(writer, dtype, shape):
    t = (torch.randn(shape) * 50).to(dtype)
    back = unpack(writer({"t": t}))["t"]
    assert back.dtype == dtype and back.shape == t.shape and torch.equal(back, t)


@pytest.mark.parametrize("writer", WRITERS.values(), ids=list(WRITERS))
def test_views_shared_storage_conjugates_and_negatives_round_trip(writer):
    base = torch.arange(24.0).reshape(4, 6)
    c = torch.randn(3, dtype=torch.complex64).conj().imag  # a lazily negated view
    sent = {"t": base.T, "col": base[:, 1], "same": base, "again": base, "neg": c}
    sent |= {"half": base.to(torch.bfloat16)[1:], "flags": base > 3, "none": base[:0]}
    back = unpack(writer(sent))
    assert set(back) == set(sent)
    for name, t in sent.items():
        assert back[name].is_contiguous() and torch.equal(back[name], t), name


def test_what_a_worker_writes_is_a_safetensors_file_for_safetensors_itself():
    sent = {"W1": torch.randn(3, 4), "ix": torch.arange(5), "b": torch.ones(2, dtype=torch.bool)}
    back = safetensors.torch.load(b"".join(views(sent)))
    assert set(back) == set(sent) and all(torch.equal(back[n], t) for n, t in sent.items())


def test_views_do_not_copy_contiguous_tensors():
    t = torch.zeros(4)
    pieces = views({"t": t})
    t += 1
    assert len(pieces) == 2 and unpack(pieces)["t"].tolist() == [1.0] * 4


def test_unpacked_tensors_are_fresh_and_writable():
    data = bytearray(GOOD)
    t = unpack(memoryview(data))["x"]
    data[-4:] = bytes(4)
    t += 1
    assert t.tolist() == [2.5, -1.0]


def test_an_empty_buffer_has_no_tensors():
    assert unpack(pack({})) == {}


@pytest.mark.parametrize("dtype", DTYPES.values(), ids=list(DTYPES))
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (2, 3), (4, 1, 5)], ids=str)
def test_a_worker_reads_every_dtype_of_the_parents_pack_uncopied(dtype, shape):
    t = (torch.randn(shape) * 50).to(dtype)
    back = unpack_trusted(bytearray(pack({"t": t})))["t"]
    assert back.dtype == dtype and back.shape == t.shape and torch.equal(back, t)


def test_a_worker_reads_shared_storage_conjugates_and_negatives_from_pack():
    base = torch.arange(24.0).reshape(4, 6)
    c = torch.randn(3, dtype=torch.complex64).conj().imag  # a lazily negated view
    sent = {"t": base.T, "col": base[:, 1], "same": base, "again": base, "neg": c}
    sent |= {"half": base.to(torch.bfloat16)[1:], "flags": base > 3, "none": base[:0]}
    back = unpack_trusted(bytearray(pack(sent)))
    assert set(back) == set(sent)
    for name, t in sent.items():
        assert back[name].is_contiguous() and torch.equal(back[name], t), name


def test_a_workers_input_tensors_share_no_bytes():
    sent = {"a": torch.zeros(3), "b": torch.ones(2, 2), "c": torch.arange(4)}
    back = unpack_trusted(bytearray(pack(sent)))
    back["b"].fill_(7.0)
    back["a"] += 2
    assert back["a"].tolist() == [2.0] * 3 and torch.equal(back["c"], sent["c"])
    assert back["b"].tolist() == [[7.0, 7.0], [7.0, 7.0]]


@pytest.mark.parametrize(
    "blob",
    [
        _forge(b"[]"),
        _forge({"a": _entry("F32", [1], 0, 8)}, bytes(4)),
        _forge({"a": _entry("C64", [1], 0, 8)}, bytes(8)),
        _forge({"a": {"shape": [1]}}),
    ],
    ids=["not an object", "past the end", "unknown dtype", "no dtype"],
)
def test_a_buffer_that_is_not_packs_is_refused_by_the_worker(blob):
    with pytest.raises(ValueError):
        unpack_trusted(bytearray(blob))


def test_a_worker_reading_immutable_bytes_gets_a_copy_it_may_write():
    blob = pack({"x": torch.tensor([1.5, -2.0])})
    x = unpack_trusted(blob)["x"]
    x += 1
    assert x.tolist() == [2.5, -1.0] and unpack_trusted(blob)["x"].tolist() == [1.5, -2.0]
