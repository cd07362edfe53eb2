"""The sandbox's training wing: Exercise 4's loop in a confined worker, streamed to the parent.

    >>> run = StreamRun(job, limits, size)   # a `train` zygote and its one confined worker
    >>> reader = TrainStream(wire, shapes, limits.output_bytes)  # shapes: the model's

loop.py runs in the worker (the learner's backward section inside the lecture's loop),
stream.py is the parent's handle on that run and wire.py reads its frames strictly. This is the
one door that grader/training/ uses into the sandbox.
"""

from ..codec import Stream
from ..protocol import ProtocolError
from ..tensorwire import pack
from ..verdict import from_cases, judge, message
from .loop import (
    Ended,
    Program,
    prepare,
    scalars,
    section_backward,
    train,
)
from .stream import StreamFailure, StreamRun
from .wire import Done, Failed, Internal, Metrics, Params, Shapes, TrainStream, budget

__all__ = [
    "Done",
    "Ended",
    "Failed",
    "Internal",
    "Metrics",
    "Params",
    "Program",
    "ProtocolError",
    "Stream",
    "StreamFailure",
    "Shapes",
    "StreamRun",
    "TrainStream",
    "budget",
    "from_cases",
    "judge",
    "message",
    "pack",
    "prepare",
    "scalars",
    "section_backward",
    "train",
]
