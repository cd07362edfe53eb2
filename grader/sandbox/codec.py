"""The parent's side of the wire: encode a job, and strictly decode what a worker sends back.

Everything a worker sends is untrusted: each frame is checked for its kind, its exact keys and
their types; a case frame's blobs are one safetensors buffer (tensorwire.py: an allowed dtype,
a valid shape and exactly the bytes that shape needs, each name once); the whole stream has a
byte budget. Tensors are rebuilt as fresh torch.Tensors.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from .clean import inert
from .protocol import Frame, FrameReader
from .records import DTYPE_NAMES, Case, CaseOutcome, LearnerError, Limits, Returned
from .tensorwire import pack, unpack
from .worker import MAX_MESSAGE, MAX_TRACEBACK

logger = logging.getLogger("grader.sandbox")
MAX_TYPE, MAX_PROBLEM, MAX_LOG = 200, 500, 4000
NOTE_SLACK = 200  # room for the "[output truncated …]" note
FRAME_SLACK = 64 * 1024
ESCAPED = 12  # JSON bytes per character at worst: a non-BMP character is two \uXXXX escapes


@dataclass
class Stream:
    """What the parent has understood of one worker's result stream."""

    ready: bool = False
    done: bool = False
    cases: list[CaseOutcome] = field(default_factory=list)
    tensor_bytes: int = 0
    error: str | None = None  # why the stream was rejected
    internal: str | None = None  # the worker's own report of a failure outside learner code


def encode_job(code: str, cases: Sequence[Case], limits: Limits) -> tuple[dict, list]:
    """Return the payload frame (header, blobs) for a job: one tensor blob per case."""
    return job_header(code, cases, limits), job_blobs(cases)


def job_header(code: str, cases: Sequence[Case], limits: Limits) -> dict:
    """Return a job's payload header; raise on code, names, values or tensors that cannot cross."""
    if not isinstance(code, str):
        raise TypeError(f"code must be a str, not {type(code).__name__}")
    specs = [_case_spec(case) for case in cases]
    sizes = {"output_bytes": limits.output_bytes, "result_bytes": limits.result_bytes}
    return {"code": code, "cases": specs, **sizes}


def job_blobs(cases: Sequence[Case]) -> list[bytes]:
    """Return a job's blobs: each case's input tensors as one buffer (cases checked already)."""
    return [pack(case.tensors) for case in cases]


def _case_spec(case: Case) -> dict:
    """Describe one case for the wire; raise on names, values or tensors that cannot cross."""
    if not isinstance(case, Case):
        raise TypeError(f"expected a Case, got {type(case).__name__}")
    names = [case.name, *case.tensors, *case.values, *case.outputs]
    bad = [n for n in names[1:] if not (isinstance(n, str) and n.isidentifier())]
    if not isinstance(case.name, str) or bad:
        raise ValueError(f"case {case.name!r}: names must be identifiers, got {bad}")
    json.dumps(case.values, allow_nan=False)
    for name, t in case.tensors.items():
        if not isinstance(t, torch.Tensor) or t.dtype not in DTYPE_NAMES:
            raise ValueError(f"case {case.name!r}: {name} is not a tensor of an allowed dtype")
        if t.layout != torch.strided or t.device.type != "cpu":
            raise ValueError(f"case {case.name!r}: {name} is not a dense CPU tensor")
    return {"name": case.name, "values": dict(case.values), "outputs": list(case.outputs)}


def stream_budget(limits: Limits, n_cases: int) -> int:
    """Return how many bytes a worker may send for a job: tensors, text and framing."""
    text = limits.output_bytes + n_cases * (NOTE_SLACK + MAX_MESSAGE + MAX_TRACEBACK)
    return limits.result_bytes + ESCAPED * text + (n_cases + 3) * FRAME_SLACK


def read_stream(fd: int, cases: Sequence[Case], limits: Limits, deadline: float) -> Stream:
    """Read and check a worker's frames until the end of its stream (TimeoutError at deadline)."""
    stream = Stream()
    reader = FrameReader(fd, budget=stream_budget(limits, len(cases)))
    try:
        while (frame := reader.read(deadline)) is not None:
            accept(stream, frame, cases, limits)
    except TimeoutError:
        raise
    except Exception as e:  # the worker's bytes are the learner's: whatever breaks decoding
        stream.error = f"{type(e).__name__}: {e}"[:MAX_LOG]
        logger.warning("sandbox: rejected a worker's stream", exc_info=True)
    return stream


def accept(stream: Stream, frame: Frame, cases: Sequence[Case], limits: Limits) -> None:
    """Fold one frame into the stream, raising ValueError if it is out of place or malformed."""
    kind = frame.header.get("kind")
    if stream.done or stream.internal is not None:
        raise ValueError(f"frame {kind!r} after the end of the run")
    if kind == "internal":
        stream.internal = inert_text(frame.header.get("log"), MAX_LOG)
    elif not stream.ready:
        if kind != "ready" or frame.header != {"kind": "ready"} or frame.blobs:
            raise ValueError(f"expected a ready frame, got {kind!r}")
        stream.ready = True
    elif kind == "case" and len(stream.cases) < len(cases):
        stream.cases.append(decode_case(frame, cases[len(stream.cases)], stream, limits))
    elif kind == "done" and frame.header == {"kind": "done"} and not frame.blobs:
        stream.done = True
    else:
        raise ValueError(f"unexpected frame {kind!r}")


def decode_case(frame: Frame, case: Case, stream: Stream, limits: Limits) -> CaseOutcome:
    """Check one case frame against the case it answers and rebuild its tensors."""
    header = frame.header
    _keys(header, {"kind", "name", "error", "returned", "stdout"}, "case frame")
    if header["name"] != case.name:
        raise ValueError(f"case {header['name']!r} arrived where {case.name!r} was expected")
    problems, tensors = header["returned"], _tensors(frame, case)
    if not isinstance(problems, dict) or not set(problems) <= set(case.outputs) - set(tensors):
        raise ValueError(f"case {case.name!r}: returned names do not match the outputs")
    stream.tensor_bytes += sum(t.nbytes for t in tensors.values())
    if stream.tensor_bytes > limits.result_bytes:
        raise ValueError("returned tensors exceed result_bytes")
    outs = {n: _returned(n, problems, tensors) for n in case.outputs}
    stdout = inert_text(header["stdout"], limits.output_bytes + NOTE_SLACK)
    return CaseOutcome(case.name, _error(header["error"]), outs, stdout)


def _tensors(frame: Frame, case: Case) -> dict[str, torch.Tensor]:
    """Rebuild a case frame's blobs, one safetensors buffer: tensors named after outputs."""
    tensors = unpack(frame.blobs)
    if not set(tensors) <= set(case.outputs):
        raise ValueError(f"case {case.name!r}: tensors {sorted(tensors)} are not all outputs")
    return tensors


def _returned(name: str, problems: dict, tensors: dict[str, torch.Tensor]) -> Returned:
    """Return one output: its tensor, or the worker's reason there is none."""
    if name in tensors:
        return Returned(name, tensors[name], None)
    if name not in problems:
        return Returned(name, None, "is not defined")
    _keys(problems[name], {"problem"}, f"output {name!r}")
    return Returned(name, None, inert_text(problems[name]["problem"], MAX_PROBLEM))


def _error(entry: object) -> LearnerError | None:
    """Rebuild the learner's exception from its wire form."""
    if entry is None:
        return None
    _keys(entry, {"type", "message", "line", "traceback"}, "error")
    line = entry["line"]
    if line is not None and (type(line) is not int or line < 0):
        raise ValueError("error line is not a line number")
    text = (inert_text(entry[k], n) for k, n in (("type", MAX_TYPE), ("message", MAX_MESSAGE)))
    return LearnerError(*text, line, inert_text(entry["traceback"], MAX_TRACEBACK))


def _keys(entry: object, keys: set[str], what: str) -> None:
    """Raise ValueError unless entry is a dict with exactly these keys."""
    if not isinstance(entry, dict) or set(entry) != keys:
        raise ValueError(f"{what} has the wrong keys")


def inert_text(value: object, limit: int) -> str:
    """Return value, made inert and cut to limit, if it is a string; else raise ValueError."""
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return inert(value[:limit])
