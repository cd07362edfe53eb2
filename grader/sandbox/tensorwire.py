"""Tensors as raw bytes plus (dtype name, shape): the only way tensors cross the boundary."""

from __future__ import annotations

import math

import torch

from .records import DTYPE_NAMES, DTYPES

MAX_DIMS = 16
MAX_SPAN = 2**62  # the product of the non-zero sizes; past int64, torch overflows even at numel 0


def tensor_bytes(t: torch.Tensor) -> memoryview:
    """Return the bytes of t in C order, without copying when t is already contiguous."""
    flat = t.detach().resolve_conj().resolve_neg().contiguous().reshape(-1)
    return memoryview(flat.view(torch.uint8).numpy())


def describe(t: torch.Tensor) -> dict:
    """Return the wire description (dtype name, shape) of a plain tensor."""
    return {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape)}


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


def tensor_from(blob: memoryview, dtype: str, shape: list[int]) -> torch.Tensor:
    """Return a fresh tensor that owns a copy of blob, after checking dtype, shape and size."""
    check_spec(dtype, shape, blob.nbytes)
    out = torch.empty(shape, dtype=DTYPES[dtype])
    if blob.nbytes:
        raw = torch.frombuffer(blob, dtype=torch.uint8)
        out.reshape(-1).view(torch.uint8).copy_(raw)
    return out
