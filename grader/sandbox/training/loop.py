"""Exercise 4's training loop with the learner's backward section: the training worker's job.

It runs in the confined training worker, and bare (in this process) in benchmarks. The worker
sees no other file of the project, so this module imports torch and this package only: the
loop's own code comes as text in the job, a Program (grader/training/model.py derives it from
the lecture's MLP, the page shows the same text), with the names of the parameters it trains.
Its INIT runs once; its STEP draws a batch and runs the forward pass on every step, and the
learner's section runs after it, in the same namespace.

Frames the worker writes to the result pipe, in order:
    {"kind": "ready"}                                   once, before the loop
    {"kind": "metrics", "step", "elapsed"}              every EVERY seconds: one blob of float32
                                                        losses, one per step since the last one
    {"kind": "params", "step"}                          the trained parameters, one
                                                        safetensors buffer (tensorwire.views),
 or {"kind": "failed", "step", "reason", "error", "detail"}     why the loop stopped early
    {"kind": "done", "stdout"}                          last
"""

from __future__ import annotations

import builtins
import functools
import linecache
import math
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType

import torch
import torch.nn.functional as F

from ..protocol import Frame, write_frame
from ..tensorwire import unpack, views
from ..worker import FILENAME, STOPS, Capture, learner_error, problem_with, serve_job

EVERY = 0.25  # seconds between metrics frames
SIZES = ("n", "vocab_size", "block_size", "n_embd", "n_hidden", "seed")

Backward = Callable[[dict, "dict[str, torch.Tensor]"], "list[torch.Tensor] | str"]
Report = Callable[[int, float, array], None]


@dataclass(frozen=True)
class Program:
    """The loop's own code as text: INIT draws the parameters (`params`, by name), STEP a batch
    and its forward."""

    init: str
    step: str
    params: tuple[str, ...]

    @classmethod
    def of(cls, data: dict) -> Program:
        """Return the program a job carries (its asdict, read back)."""
        return cls(data["init"], data["step"], tuple(data["params"]))

    @property
    def grads(self) -> tuple[str, ...]:
        """Return the names of the parameters' gradients, `d` and the name, in their order."""
        return tuple(f"d{name}" for name in self.params)

    @property
    def init_code(self) -> CodeType:
        """Return INIT compiled."""
        return _compiled(self.init, "<init>")

    @property
    def step_code(self) -> CodeType:
        """Return STEP compiled."""
        return _compiled(self.step, "<step>")


@functools.cache
def _compiled(source: str, name: str) -> CodeType:
    """Compile a program's text once per process."""
    return compile(source, name, "exec", dont_inherit=True)


@dataclass(frozen=True)
class Ended:
    """How a loop ended: the steps done, and why it stopped early (reason None: it finished)."""

    step: int
    reason: str | None = None  # "error", "nonfinite" or "gradient"
    error: BaseException | None = None
    detail: str = ""


def prepare(program: Program, settings: dict, Xtr: torch.Tensor, Ytr: torch.Tensor) -> dict:
    """Return the loop's namespace: torch, the sizes, the data and the parameters INIT draws."""
    ns = {"__name__": "__main__", "__builtins__": dict(builtins.__dict__)}
    ns.update(torch=torch, F=F, math=math, Xtr=Xtr, Ytr=Ytr)
    ns.update(scalars(settings))
    exec(program.init_code, ns)
    return ns


def scalars(settings: dict, step: int = 0) -> dict:
    """Return the plain numbers the shown loop defines: sizes, seed, batch_size, max_steps, i."""
    loop = {"batch_size": settings["n"], "max_steps": settings["steps"], "i": step}
    return {name: settings[name] for name in SIZES} | loop


def rate(settings: dict, i: int) -> float:
    """Return the learning rate at step i: the lecture's step decay."""
    return settings["learning_rate"] if i < settings["decay_step"] else settings["decayed_rate"]


def train(
    program: Program, ns: dict, settings: dict, backward: Backward, report: Report, every=EVERY
) -> Ended:
    """Run the loop from ns, reporting losses every `every` seconds; return how it ended.

    `backward(ns, params)` returns the gradients in the order of params (the program's, by
    name), or a problem to stop on.
    """
    params, step = {name: ns[name] for name in program.params}, program.step_code
    tensors = list(params.values())
    pending, start = array("f"), time.perf_counter()
    last = start
    for i in range(settings["steps"]):
        ns.update(params)  # the loop's own, whatever the section did
        ns["i"] = i
        exec(step, ns)
        try:
            grads = backward(ns, params)
            if isinstance(grads, str):
                return _end(report, i, start, pending, Ended(i, "gradient", detail=grads))
            update(tensors, grads, rate(settings, i))
        except (Exception, *STOPS) as e:
            return _end(report, i, start, pending, Ended(i, "error", e))
        loss = ns["loss"].item()
        if not math.isfinite(loss):
            return _end(report, i, start, pending, Ended(i, "nonfinite", detail=str(loss)))
        pending.append(loss)
        if (now := time.perf_counter()) - last >= every:
            report(i + 1, now - start, pending)
            pending, last = array("f"), now
    return _end(report, settings["steps"], start, pending, Ended(settings["steps"]))


def _end(report: Report, step: int, start: float, pending: array, ended: Ended) -> Ended:
    """Report the losses not reported yet, then return ended."""
    report(step, time.perf_counter() - start, pending)
    return ended


def update(params: list, grads: list, lr: float) -> None:
    """Take one step of gradient descent in place: the lecture's p.data += -lr * grad.

    One call for every parameter (on the CPU, each `add_` in turn, bit for bit the same).
    """
    with torch.no_grad():
        torch._foreach_add_(params, grads, alpha=-lr)


def section_backward(code) -> Backward:
    """Return a backward that runs the learner's compiled section and reads the d-names."""

    names: list[str] = []  # the d-names, made on the first step

    def backward(ns: dict, params: dict) -> list[torch.Tensor] | str:
        exec(code, ns)
        if not names:
            names.extend(f"d{name}" for name in params)
        grads = [ns.get(name) for name in names]
        for name, grad, p in zip(names, grads, params.values(), strict=True):
            if type(grad) is not torch.Tensor or grad.shape != p.shape:
                return gradient_problem(name, grad, p, name in ns)
        return grads

    return backward


def gradient_problem(name: str, grad: object, p: torch.Tensor, defined: bool) -> str:
    """Say why grad cannot update the parameter p."""
    problem = problem_with(grad) if defined else "is not defined"
    if problem:
        return f"`{name}` {problem}."
    got, want = tuple(grad.shape), tuple(p.shape)
    return f"`{name}` has the wrong shape: got {got}, expected {want}."


def compile_section(source: str):
    """Compile the learner's section under the name their tracebacks show."""
    linecache.cache[FILENAME] = (len(source), None, source.splitlines(True), FILENAME)
    return compile(source, FILENAME, "exec", dont_inherit=True)


def serve(payload: Frame, out: int) -> int:
    """Run one training job from payload, streaming frames to out; return the exit code."""

    def work(job: dict, blobs: tuple, capture: Capture) -> None:
        program = Program.of(job["program"])
        ended, ns = _run(job, program, blobs, out)
        _finish(out, ended, {name: ns.get(name) for name in program.params}, capture)

    # no dispatch audit: training's figures and speed stay the lecture's
    return serve_job(payload, out, work, dispatch_audit=False)


def _run(job: dict, program: Program, blobs: tuple, out: int) -> tuple[Ended, dict]:
    """Build the namespace from the job and train; return how it ended and the namespace."""
    try:
        code = compile_section(job["code"])
    except (SyntaxError, ValueError) as e:
        return Ended(0, "error", e), {}
    settings = job["settings"]
    split = unpack(blobs[0])  # from the trusted parent
    ns = prepare(program, settings, split["Xtr"], split["Ytr"])
    with torch.inference_mode():
        return train(program, ns, settings, section_backward(code), _emitter(out)), ns


def _emitter(out: int) -> Report:
    """Return a report function that writes one metrics frame."""

    def emit(step: int, elapsed: float, losses: array) -> None:
        write_frame(out, {"kind": "metrics", "step": step, "elapsed": elapsed}, [losses])

    return emit


def _finish(out: int, ended: Ended, params: dict, capture: Capture) -> None:
    """Write the trained parameters, or why training stopped; then the done frame."""
    if ended.reason is None:
        write_frame(out, {"kind": "params", "step": ended.step}, views(params))
    else:
        error = learner_error(ended.error) if ended.error is not None else None
        failed = {"kind": "failed", "step": ended.step, "reason": ended.reason}
        write_frame(out, {**failed, "error": error, "detail": ended.detail[:500]})
    write_frame(out, {"kind": "done", "stdout": capture.take()})
