"""Tensors as safetensors buffers: the only way tensors cross the boundary.

The tensors of one frame travel in the safetensors format (an 8-byte header length, a JSON
header of names, dtypes, shapes and offsets, then the raw bytes): as one blob that safetensors'
serializer writes (`pack`: the parent's jobs), or as the header and each tensor's bytes, blobs
back to back (`views`: what a worker returns). Every buffer is read by safetensors' own parser,
built and fuzzed for untrusted files: it refuses a header that is malformed, too large or of an
unknown dtype, and offsets that do not tile the buffer exactly. `unpack` adds what that parser
leaves to its caller: only the dtypes of records.DTYPES, at most MAX_DIMS sizes spanning at most
MAX_SPAN elements, names that are identifiers and appear once, no metadata or unknown keys, and
fresh tensors.

    >>> unpack(pack({"x": torch.ones(2, 3)}))["x"].shape
    torch.Size([2, 3])
"""

from __future__ import annotations

import json
import math

import numpy
import safetensors
import torch

from .records import DTYPES

MAX_DIMS = 16
MAX_SPAN = 2**62  # the product of the non-zero sizes; past int64, torch overflows even at numel 0
# safetensors' name for each dtype that may cross (records.DTYPES); any other is refused.
CODES = {"F32": "float32", "F64": "float64", "F16": "float16", "BF16": "bfloat16",
         "I64": "int64", "I32": "int32", "I16": "int16", "I8": "int8", "U8": "uint8",
         "BOOL": "bool"}  # fmt: skip
ENTRY = {"dtype", "shape", "data_offsets"}
WIRE = {DTYPES[name]: code for code, name in CODES.items()}
PANIC = "PanicException"  # pyo3's exception for a Rust panic, a BaseException
_SPARE = torch.zeros(8, dtype=torch.uint8)  # an address for empty tensors, whose own may be 0


def pack(tensors: dict[str, torch.Tensor]) -> bytes:
    """Return tensors as one safetensors buffer, each in C order (the parent's jobs).

    It calls safetensors' serializer with each tensor's address, as `safetensors.torch.save`
    does after checks that cost ten times the copy here and refuse tensors that share memory,
    as a case's inputs may; `plain` keeps every address alive through the call.
    """
    plain = [_plain(t) for t in tensors.values()]
    specs = {name: _spec(t) for name, t in zip(tensors, plain, strict=True)}
    return safetensors.serialize(specs)


def _plain(t: torch.Tensor) -> torch.Tensor:
    """Return t's values in C order: t itself when they already are (the usual case: the
    four copies or views cost more than the serializer's copy), else a plain copy."""
    if t.is_contiguous() and not t.is_conj() and not t.is_neg():
        return t
    return t.detach().resolve_conj().resolve_neg().contiguous()


def _spec(t: torch.Tensor) -> safetensors.TensorSpec:
    """Describe a contiguous tensor's bytes for the serializer (never a null address)."""
    address = t.data_ptr() if t.nbytes else _SPARE.data_ptr()
    dtype = str(t.dtype).removeprefix("torch.")
    return safetensors.TensorSpec(dtype=dtype, shape=t.shape, data_ptr=address, data_len=t.nbytes)


def views(tensors: dict[str, torch.Tensor]) -> list[memoryview]:
    """Return a safetensors buffer in pieces: its header, then each tensor's bytes, uncopied.

    The worker writes its results so: safetensors' serializer copies every tensor twice, and
    its Rust allocations abort the process when they fail, as they may under the worker's
    memory limit. Whatever the worker writes is read by `unpack`, that is by safetensors.
    """
    plain = [t.detach().resolve_conj().resolve_neg().contiguous() for t in tensors.values()]
    header, start = {}, 0
    for name, t in zip(tensors, plain, strict=True):
        header[name] = {"dtype": WIRE[t.dtype], "shape": list(t.shape),
                        "data_offsets": [start, start + t.nbytes]}  # fmt: skip
        start += t.nbytes
    line = json.dumps(header, separators=(",", ":")).encode()
    line += b" " * (-len(line) % 8)  # the data starts 8-byte aligned
    head = memoryview(len(line).to_bytes(8, "little") + line)
    return [head, *(memoryview(t.reshape(-1).view(torch.uint8).numpy()) for t in plain)]


def unpack(blobs: bytes | memoryview | list) -> dict[str, torch.Tensor]:
    """Return the tensors of a safetensors buffer (or its pieces) as fresh tensors.

    Raise ValueError if the buffer is malformed or holds what may not cross.
    """
    blob = b"".join(blobs) if isinstance(blobs, list | tuple) else bytes(blobs)
    try:
        entries = safetensors.deserialize(blob)
    except BaseException as e:  # a panic in the parser's bindings is not an Exception
        if not isinstance(e, safetensors.SafetensorError) and type(e).__name__ != PANIC:
            raise
        raise ValueError(f"bad tensor buffer: {e}") from None
    _check_names(blob, [name for name, _ in entries])
    return {name: _tensor(name, entry) for name, entry in entries}


def _check_names(blob: bytes, names: list[str]) -> None:
    """Raise ValueError unless the header (safetensors parsed it) has each name once, exactly."""
    size = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8 : 8 + size], object_pairs_hook=_unique)
    if sorted(header) != sorted(names):
        raise ValueError(f"tensor buffer header has keys {sorted(header)} besides its tensors")
    if any(set(entry) != ENTRY for entry in header.values()):
        raise ValueError("a tensor's header entry has the wrong keys")
    bad = [name for name in names if not name.isidentifier()]
    if bad:
        raise ValueError(f"tensor names {bad} are not identifiers")


def _unique(pairs: list[tuple[str, object]]) -> dict:
    """Return a JSON object's pairs as a dict, refusing a repeated key."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise ValueError(f"tensor buffer header repeats a key: {[k for k, _ in pairs]}")
    return obj


def _tensor(name: str, entry: dict) -> torch.Tensor:
    """Rebuild one deserialized entry as a tensor, after checking dtype, shape and size."""
    code, shape, data = entry["dtype"], entry["shape"], entry["data"]
    if code not in CODES:
        raise ValueError(f"tensor {name!r}: dtype {code!r} is not allowed")
    check_spec(CODES[code], shape, len(data))
    dtype = DTYPES[CODES[code]]
    if not data:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(data, dtype=dtype).reshape(shape)  # data: a bytearray of its own


def check_spec(dtype: object, shape: object, size: int) -> None:
    """Raise ValueError unless (dtype, shape) is valid and describes exactly size bytes."""
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise ValueError(f"dtype {dtype!r} is not allowed")
    if not isinstance(shape, list) or len(shape) > MAX_DIMS:
        raise ValueError(f"shape {shape!r} is not a list of at most {MAX_DIMS} sizes")
    if not all(type(n) is int and n >= 0 for n in shape):
        raise ValueError(f"shape {shape!r} has a size that is not a non-negative int")
    if math.prod(max(n, 1) for n in shape) > MAX_SPAN:
        raise ValueError(f"shape {shape!r} spans more than {MAX_SPAN} elements")
    expected = math.prod(shape) * DTYPES[dtype].itemsize
    if expected != size:
        raise ValueError(f"shape {shape} of {dtype} needs {expected} bytes, got {size}")


def unpack_trusted(blob: memoryview) -> dict[str, torch.Tensor]:
    """Return the tensors of a buffer from `pack`, the parent's own, as views of it, uncopied.

    A worker reads its inputs so (before any learner code runs): they come from the trusted
    parent, so safetensors' parser (which copies every tensor) and `unpack`'s checks are not
    needed there; a buffer that is not `pack`'s still raises ValueError. Each tensor is a view
    of its own bytes of the buffer, so writing to one never changes another.
    """
    view = memoryview(blob).cast("B")
    if view.readonly:  # bytes: tensors must not write to an immutable object's memory
        view = memoryview(bytearray(view))
    start = 8 + int.from_bytes(view[:8], "little")
    try:
        header = json.loads(bytes(view[8:start]))
        return {name: _view(name, entry, view[start:]) for name, entry in header.items()}
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"not a buffer of pack: {e!r}") from None


def _view(name: str, entry: dict, data: memoryview) -> torch.Tensor:
    """Return one entry of a `pack` buffer as a tensor viewing its bytes in data."""
    dtype = DTYPES[CODES[entry["dtype"]]]
    begin, end = entry["data_offsets"]
    if not 0 <= begin <= end <= len(data):
        raise ValueError(f"tensor {name!r}: its offsets are outside the buffer")
    if end == begin:
        return torch.empty(entry["shape"], dtype=dtype)
    if dtype in _NUMPY:  # no operation for the dispatch audit to pass (torch's own: two)
        array = numpy.frombuffer(data[begin:end], dtype=_NUMPY[dtype]).reshape(entry["shape"])
        try:
            return torch.from_dlpack(array)
        except (BufferError, TypeError, RuntimeError):  # a dtype this numpy cannot export
            return torch.from_numpy(array)
    return torch.frombuffer(data[begin:end], dtype=dtype).reshape(entry["shape"])


# numpy's name of each dtype it shares with torch (not bfloat16): a view made by numpy and
# taken through DLPack dispatches no operation; torch's `frombuffer` and `reshape` dispatch two,
# each through the worker's dispatch audit (Python) before the learner's code runs.
_NUMPY = {t: str(t).removeprefix("torch.") for t in DTYPES.values() if t is not torch.bfloat16}
