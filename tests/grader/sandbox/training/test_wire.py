"""The parent trusts nothing a training worker sends: every frame out of place is rejected."""

from __future__ import annotations

import pytest
import torch

from grader.sandbox.protocol import Frame
from grader.sandbox.tensorwire import views
from grader.sandbox.training.wire import (
    Done,
    Failed,
    Internal,
    Metrics,
    Params,
    TrainStream,
    budget,
)

SETTINGS = {"steps": 4, "vocab_size": 5, "block_size": 2, "n_embd": 3, "n_hidden": 4}
SHAPES = {  # what the parent expects back (in the app: the model's, for the run's sizes)
    "C": (5, 3), "W1": (6, 4), "b1": (4,), "W2": (4, 5), "b2": (5,),
    "bngain": (1, 4), "bnbias": (1, 4),
}  # fmt: skip
ERROR = {"type": "NameError", "message": "name 'q' is not defined", "line": 3, "traceback": "t"}


def _losses(*values: float) -> memoryview:
    return memoryview(bytearray(torch.tensor(values, dtype=torch.float32).numpy().tobytes()))


def _metrics(step: int, *values: float, elapsed: float = 0.5) -> Frame:
    return Frame({"kind": "metrics", "step": step, "elapsed": elapsed}, (_losses(*values),))


def _params(shapes=SHAPES, step: int = 4, dtype=torch.float32) -> Frame:
    pieces = views({name: torch.ones(shape, dtype=dtype) for name, shape in shapes.items()})
    return Frame({"kind": "params", "step": step}, tuple(pieces))


def _failed(**change) -> Frame:
    header = {"kind": "failed", "step": 2, "reason": "error", "error": ERROR, "detail": ""}
    return Frame(header | change)


def _stream(*frames: Frame) -> tuple[TrainStream, list]:
    stream = TrainStream(SETTINGS, SHAPES, 1000)
    events = [stream.accept(Frame({"kind": "ready"}))]
    events += [stream.accept(frame) for frame in frames]
    return stream, events


def test_a_whole_run_is_decoded():
    frames = (_metrics(2, 3.0, 2.5), _metrics(4, 2.0, 1.5, elapsed=0.9), _params())
    stream, events = _stream(*frames, Frame({"kind": "done", "stdout": "hi"}))
    assert events[0] is None and stream.done
    assert isinstance(events[1], Metrics) and events[1].losses.tolist() == [3.0, 2.5]
    assert events[2].step == 4 and events[2].elapsed == 0.9
    assert isinstance(events[3], Params) and list(events[3].tensors) == list(SHAPES)
    assert events[3].tensors["W1"].shape == (6, 4) and events[4] == Done("hi")


def test_the_parameters_come_in_the_expected_order_whatever_the_blobs():
    _, events = _stream(_metrics(4, 1, 2, 3, 4), _params(dict(reversed(SHAPES.items()))))
    assert list(events[2].tensors) == list(SHAPES)


def test_a_failure_is_decoded_with_the_learners_error():
    _, events = _stream(_metrics(2, 3.0, 2.5), _failed(), Frame({"kind": "done", "stdout": ""}))
    assert isinstance(events[2], Failed) and events[2].error.type == "NameError"
    assert events[2].step == 2


HOSTILE_TEXT = "\x1b[2J\x1b[32m solved\r\u202e\ud800\x07"
INERT_TEXT = "\\x1b[2J\\x1b[32m solved\n\\u202e\\ud800\\x07"


def test_learner_text_in_a_training_stream_is_made_inert():
    failed = _failed(detail=HOSTILE_TEXT, error={**ERROR, "message": HOSTILE_TEXT})
    _, events = _stream(
        _metrics(2, 3.0, 2.5), failed, Frame({"kind": "done", "stdout": HOSTILE_TEXT})
    )
    texts = [events[2].detail, events[2].error.message, events[3].stdout]
    _, internal = _stream(Frame({"kind": "internal", "log": HOSTILE_TEXT}))
    for text in [*texts, internal[1].log]:
        assert text == INERT_TEXT
        text.encode("utf-8")  # no lone surrogate left


def test_an_internal_report_ends_the_stream():
    stream, events = _stream(Frame({"kind": "internal", "log": "boom"}))
    assert events[1] == Internal("boom") and stream.done


@pytest.mark.parametrize(
    "frames",
    [
        (_metrics(2, 3.0),),  # two steps, one loss
        (_metrics(5, 1, 2, 3, 4, 5),),  # past the last step
        (_metrics(2, 3.0, 2.0), _metrics(1)),  # backwards
        (_metrics(2, 3.0, 2.0, elapsed=float("nan")),),
        (Frame({"kind": "metrics", "step": 1.0, "elapsed": 0.1}, (_losses(1.0),)),),
        (Frame({"kind": "metrics", "step": 1, "elapsed": 0.1, "x": 1}, (_losses(1.0),)),),
        (_params(step=3),),  # not every step done
        (_metrics(4, 1, 2, 3, 4), _params({**SHAPES, "W1": (4, 6)})),
        (_metrics(4, 1, 2, 3, 4), _params({k: SHAPES[k] for k in list(SHAPES)[1:]})),
        (_metrics(4, 1, 2, 3, 4), _params({**SHAPES, "W3": (2,)})),
        (_metrics(4, 1, 2, 3, 4), _params(dtype=torch.float64)),
        (_metrics(4, 1, 2, 3, 4), Frame({"kind": "params", "step": 4}, (b"\0" * 16,))),
        (_metrics(4, 1, 2, 3, 4), Frame({"kind": "params", "step": 4}, _params().blobs * 2)),
        (_metrics(4, 1, 2, 3, 4), Frame({"kind": "params", "step": 4}, _params().blobs[1:])),
        (_failed(step=3),),  # not at the step last reported
        (_failed(reason="tired"),),
        (_failed(error={"type": "X"}),),
        (_metrics(2, 1, 2), _failed(), _metrics(4, 1, 2)),  # after the end
        (Frame({"kind": "done", "stdout": ""}),),  # done before the end
        (Frame({"kind": "ready"}),),  # twice
        (Frame({"kind": "case"}),),
    ],
)
def test_a_frame_out_of_place_is_refused(frames):
    with pytest.raises(ValueError):
        _stream(*frames)


def test_the_first_frame_must_be_ready():
    with pytest.raises(ValueError):
        TrainStream(SETTINGS, SHAPES, 1000).accept(_metrics(1, 2.0))


def test_the_budget_covers_one_loss_per_step_and_the_parameters():
    small = budget(SETTINGS, SHAPES, 1000)
    assert budget({**SETTINGS, "steps": 1004}, SHAPES, 1000) == small + 4000
    assert budget(SETTINGS, SHAPES | {"W3": (10, 10)}, 1000) == small + 400
