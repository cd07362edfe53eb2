"""The parent's strict reading of a training worker's stream (loop.py writes it).

Everything the worker sends is untrusted: each frame must be the kind that can come next, with
exactly its keys and types; steps only move forward, one float32 loss per step; the parameters
come back as one safetensors buffer (tensorwire.py) with exactly the names, dtype and shapes that
the parent expects (Shapes: the model's, which grader/training/model.py derives from the
scenario); the whole stream has a budget.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..codec import _error as decode_error  # the same wire form as a grading worker's errors
from ..codec import inert_text
from ..protocol import Frame
from ..records import LearnerError
from ..tensorwire import unpack

REASONS = ("error", "nonfinite", "gradient")
MAX_DETAIL, MAX_LOG = 500, 4000
SLACK = 1024**2  # headers, tracebacks and JSON escapes

Shapes = dict[str, tuple[int, ...]]  # each trained parameter's shape, by name, in order


@dataclass(frozen=True)
class Metrics:
    """The losses of the steps since the last report; `step` steps are done in `elapsed` s."""

    step: int
    elapsed: float
    losses: torch.Tensor


@dataclass(frozen=True)
class Failed:
    """Training stopped early at `step`: an exception, a non-finite loss or a bad gradient."""

    step: int
    reason: str
    error: LearnerError | None
    detail: str


@dataclass(frozen=True)
class Params:
    """The trained parameters, by name."""

    step: int
    tensors: dict[str, torch.Tensor]


@dataclass(frozen=True)
class Done:
    """The end of the stream, with what the learner's code printed."""

    stdout: str


@dataclass(frozen=True)
class Internal:
    """The worker's report of a failure outside the learner's code."""

    log: str


def budget(settings: dict, shapes: Shapes, output_bytes: int) -> int:
    """Return how many bytes a training worker may send for these settings and parameters."""
    params = sum(4 * _numel(s) for s in shapes.values())
    return 4 * settings["steps"] + params + 12 * output_bytes + SLACK


def _numel(shape: tuple[int, ...]) -> int:
    """Return the number of elements of a shape."""
    count = 1
    for size in shape:
        count *= size
    return count


class TrainStream:
    """Turn frames into events, refusing any frame that cannot come next (ValueError)."""

    def __init__(self, settings: dict, shapes: Shapes, output_bytes: int):
        self.shapes = dict(shapes)
        self.steps, self.output_bytes = settings["steps"], output_bytes
        self.ready, self.ended, self.done, self.step = False, False, False, 0
        self.elapsed = 0.0

    def accept(self, frame: Frame) -> Metrics | Failed | Params | Done | Internal | None:
        """Check one frame and return its event (None for the ready frame)."""
        kind = frame.header.get("kind")
        if self.done:
            raise ValueError(f"frame {kind!r} after the end of the stream")
        if kind == "internal":
            _keys(frame, {"kind", "log"})
            self.done = True
            return Internal(inert_text(frame.header["log"], MAX_LOG))
        if not self.ready:
            if kind != "ready" or frame.header != {"kind": "ready"} or frame.blobs:
                raise ValueError(f"expected a ready frame, got {kind!r}")
            self.ready = True
            return None
        return self._event(kind, frame)

    def _event(self, kind: object, frame: Frame):
        """Decode a frame after the ready frame."""
        if kind == "done" and self.ended:
            _keys(frame, {"kind", "stdout"})
            self.done = True
            return Done(inert_text(frame.header["stdout"], self.output_bytes + 200))
        if self.ended:
            raise ValueError(f"frame {kind!r} after the run ended")
        if kind == "metrics":
            return self._metrics(frame)
        if kind == "failed":
            return self._failed(frame)
        if kind == "params":
            return self._params(frame)
        raise ValueError(f"unexpected frame {kind!r}")

    def _metrics(self, frame: Frame) -> Metrics:
        """Check a metrics frame: steps move forward, one float32 loss per new step."""
        _keys(frame, {"kind", "step", "elapsed"}, blobs=1)
        step, elapsed, blob = frame.header["step"], frame.header["elapsed"], frame.blobs[0]
        if type(step) is not int or not self.step <= step <= self.steps:
            raise ValueError(f"bad metrics frame at step {step!r}")
        if type(elapsed) is not float or not self.elapsed <= elapsed < 1e9:
            raise ValueError(f"bad elapsed time {elapsed!r}")
        count = step - self.step
        if blob.nbytes != 4 * count:
            raise ValueError(f"metrics for {count} steps carry {blob.nbytes} bytes")
        self.step, self.elapsed = step, elapsed
        return Metrics(step, elapsed, _tensor(blob, [count]))

    def _failed(self, frame: Frame) -> Failed:
        """Check a failed frame: it comes at the step last reported."""
        _keys(frame, {"kind", "step", "reason", "error", "detail"}, blobs=0)
        head = frame.header
        if head["step"] != self.step or head["reason"] not in REASONS:
            raise ValueError(f"bad failed frame at step {head['step']!r}")
        self.ended = True
        error = decode_error(head["error"])
        return Failed(self.step, head["reason"], error, inert_text(head["detail"], MAX_DETAIL))

    def _params(self, frame: Frame) -> Params:
        """Check the parameters: every step done, exactly the expected names, dtype and shapes."""
        _keys(frame, {"kind", "step"}, blobs=None)
        if frame.header["step"] != self.steps or self.step != self.steps:
            raise ValueError("the parameters do not match the settings")
        tensors = unpack(frame.blobs)
        found = {n: (t.dtype, tuple(t.shape)) for n, t in tensors.items()}
        if found != {n: (torch.float32, s) for n, s in self.shapes.items()}:
            raise ValueError(f"the parameters {found} do not match the settings")
        self.ended = True
        return Params(self.step, {name: tensors[name] for name in self.shapes})


def _tensor(blob: memoryview, shape: list[int]) -> torch.Tensor:
    """Rebuild a float32 tensor of exactly this shape from its bytes (a fresh copy)."""
    if blob.nbytes != 4 * _numel(tuple(shape)):
        raise ValueError(f"a tensor of shape {shape} cannot have {blob.nbytes} bytes")
    if not blob.nbytes:
        return torch.empty(shape)
    return torch.frombuffer(bytearray(blob), dtype=torch.float32).reshape(shape)


def _keys(frame: Frame, keys: set[str], blobs: int | None = 0) -> None:
    """Raise ValueError unless the frame has exactly these keys and this many blobs (or any)."""
    if set(frame.header) != keys or blobs not in (None, len(frame.blobs)):
        raise ValueError(f"frame {frame.header.get('kind')!r} has the wrong keys or blobs")
