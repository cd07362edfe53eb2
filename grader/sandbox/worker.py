"""The worker's side of a run: execute the learner's code once per case and stream the results.

Frames written to the result pipe, in order: {"kind": "ready"} once confined; one
{"kind": "case", ...} per case run, its "returned" naming each output that is not a tensor and
why, and its blobs, back to back, the tensors as one safetensors buffer (tensorwire.views);
{"kind": "done"}.
"""

from __future__ import annotations

import builtins
import io
import linecache
import math
import os
import sys
import threading
import traceback
from collections.abc import Callable

import torch
import torch.nn.functional as F

from . import audit, nativecalls
from .confine import EXIT_MEMORY, EXIT_NO_RESULT
from .protocol import Frame, write_frame
from .records import DTYPE_NAMES
from .tensorwire import pack, unpack, unpack_trusted, views

FILENAME = "<your code>"
HUGE_OUTPUT = 16  # printing this many times the output cap stops the code
MAX_MESSAGE, MAX_TRACEBACK = 2000, 8000


AutogradForbidden = audit.AutogradForbidden  # a BaseException, so `except Exception` misses it


class OutputLimitExceeded(BaseException):
    """Raised when learner code prints far more than the output cap."""


STOPS = (SystemExit, AutogradForbidden, OutputLimitExceeded, MemoryError)
# torch reports a failed allocation as a RuntimeError with one of these in its message.
ALLOCATION_WORDS = ("DefaultCPUAllocator", "can't allocate memory", "not enough memory")


class Capture(io.TextIOBase):
    """A text stream that keeps the first `cap` characters of a run and counts the rest."""

    def __init__(self, cap: int):
        super().__init__()
        self.cap, self.kept, self.total = cap, 0, 0
        self._parts: list[str] = []
        self._dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.total += len(text)
        piece = text[: max(0, self.cap - self.kept)]
        self.kept += len(piece)
        self._parts.append(piece)
        self._dropped += len(text) - len(piece)
        if self.total > HUGE_OUTPUT * self.cap:
            raise OutputLimitExceeded(f"printed more than {HUGE_OUTPUT * self.cap} characters")
        return len(text)

    def take(self) -> str:
        """Return what was printed since the last take, with a note if some was dropped."""
        text = "".join(self._parts)
        if self._dropped:
            text += f"\n[output truncated: {self._dropped} more characters not shown]\n"
        self._parts, self._dropped = [], 0
        return text


def serve(payload: Frame, out: int) -> int:
    """Run every case of the job in payload, streaming frames to out; return the exit code."""

    inputs = [unpack_trusted(blob) for blob in payload.blobs]  # views: few operations audited

    def work(job: dict, blobs: tuple, capture: Capture) -> None:
        run_cases(job, inputs, capture, out)
        write_frame(out, {"kind": "done"})

    return serve_job(payload, out, work)


def serve_job(
    payload: Frame,
    out: int,
    work: Callable[[dict, tuple, Capture], None],
    dispatch_audit: bool = True,
) -> int:
    """Run `work(job, blobs, capture)` as a worker does: prints captured, autograd refused (each
    operation audited unless told not to), a ready frame first and the stream closed last;
    return the exit code."""
    job = payload.header
    capture = Capture(job["output_bytes"])
    sys.stdout = sys.stderr = capture
    threading.excepthook = thread_error
    forbid_autograd(dispatch_audit)
    try:
        write_frame(out, {"kind": "ready"})
        work(job, payload.blobs, capture)
        os.close(out)  # the parent sees the end of the stream now, not after the exit
    except OSError:
        return EXIT_NO_RESULT
    except MemoryError:
        return EXIT_MEMORY
    return 0


def thread_error(args: threading.ExceptHookArgs) -> None:
    """Print an exception that ended a learner's thread through the learner's own lines."""
    if args.exc_type is SystemExit or args.exc_value is None:
        return
    name = _safe(lambda: args.thread.name, "?")
    sys.stderr.write(f"Exception in thread {name}:\n{learner_error(args.exc_value)['traceback']}")


def forbid_autograd(dispatch_audit: bool = True) -> None:
    """Turn autograd off, make its entry points raise AutogradForbidden, take native calls away
    (nativecalls.py; a spare has done both already, at no cost again) and, unless told not to,
    audit every operation from now on (audit.py)."""
    switch_off()
    remove_native_calls()
    if dispatch_audit:
        audit.enter()


def remove_native_calls() -> None:
    """Take native calls away (nativecalls.py), once: a spare does it as soon as it is confined."""
    if not nativecalls.removed():
        nativecalls.remove()


def switch_off() -> None:
    """Turn grad mode off and make autograd's Python entry points raise AutogradForbidden.

    A spare does it before its run, and `forbid_autograd` again (at no cost then).
    """
    torch.set_grad_enabled(False)
    torch.Tensor.backward = _refuse
    torch.autograd.backward = _refuse
    torch.autograd.grad = _refuse


def _refuse(*args, **kwargs):
    raise AutogradForbidden("autograd is not available here: write the gradient by hand")


def run_cases(job: dict, inputs: list[dict], capture: Capture, out: int) -> None:
    """Execute the code once per case on its input tensors, writing one frame per case; stop
    early when told to."""
    source = job["code"]
    linecache.cache[FILENAME] = (len(source), None, source.splitlines(True), FILENAME)
    try:
        code = compile(source, FILENAME, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        code, first_error = None, learner_error(e)
    budget = job["result_bytes"]
    for case, tensors in zip(job["cases"], inputs, strict=True):
        if code is None:
            _send(out, case["name"], first_error, {}, {}, capture)
            return
        ns = namespace(case, tensors)
        error, stop = run_code(code, ns)
        problems, tensors, budget = collect(ns, case["outputs"], budget)
        _send(out, case["name"], error, problems, tensors, capture)
        if stop:
            return


def _send(out: int, name: str, error, problems: dict, tensors: dict, capture: Capture) -> None:
    """Write one case frame: the outputs that are not tensors in the header, the rest as a blob."""
    blobs, problems = _views(tensors, problems)
    header = {"kind": "case", "name": name, "error": error, "returned": problems}
    write_frame(out, {**header, "stdout": capture.take()}, blobs)


def _views(tensors: dict, problems: dict) -> tuple[list, dict]:
    """Return the tensors' blobs; if learner code broke packing, report them unreadable."""
    try:
        return views(tensors), problems
    except BaseException as e:
        unread = {name: {"problem": f"could not be read ({type(e).__name__})"} for name in tensors}
        return views({}), {**problems, **unread}


def cmp(name, dt=None, t=None) -> None:
    """Stand in for the lecture's `cmp(name, dt, t)`: autograd's values are not here, so the
    grader prints the lecture's line for each call after the run (grader/grading/wholepass.py)."""
    return None


def namespace(case: dict, tensors: dict) -> dict:
    """Return a fresh namespace: torch, F, math, the case's values and its input tensors."""
    ns = {"__name__": "__main__", "__builtins__": dict(builtins.__dict__)}
    ns.update(torch=torch, F=F, math=math, cmp=cmp)
    ns.update(case["values"])
    ns.update(tensors)
    return ns


def run_code(code, ns: dict) -> tuple[dict | None, bool]:
    """Execute code in ns; return the learner's error (or None) and whether to stop the run."""
    try:
        exec(code, ns)
    except BaseException as e:
        return learner_error(e), ends_run(e)
    return None, False


def ends_run(e: BaseException) -> bool:
    """Return whether an exception ends the whole run: an exit, a forbidden call, a limit."""
    if isinstance(e, STOPS):
        return True
    return isinstance(e, RuntimeError) and any(w in _safe(e.__str__, "") for w in ALLOCATION_WORDS)


def learner_error(e: BaseException) -> dict:
    """Describe an exception through the frames of the learner's own code only."""
    walk = traceback.walk_tb(e.__traceback__)
    summary = traceback.StackSummary.extract(walk, lookup_lines=False)
    frames = [f for f in summary if f.filename == FILENAME]
    line = frames[-1].lineno if frames else None
    if isinstance(e, SyntaxError) and e.filename == FILENAME:
        line = e.lineno
    head = "Traceback (most recent call last):\n" if frames else ""
    text = head + "".join(traceback.StackSummary.from_list(frames).format()) + _only(e)
    message = _safe(lambda: str(e), "<unprintable>")
    return {"type": type(e).__name__, "message": message[:MAX_MESSAGE], "line": line,
            "traceback": text[-MAX_TRACEBACK:]}  # fmt: skip


def _only(e: BaseException) -> str:
    """Return the exception's last traceback line(s), even if its str() fails."""
    fallback = f"{type(e).__name__}: <unprintable>\n"
    return _safe(lambda: "".join(traceback.format_exception_only(type(e), e)), fallback)


def _safe(make, fallback: str) -> str:
    """Return make(), or fallback if learner-defined code inside it raises."""
    try:
        return make()
    except BaseException:
        return fallback


def collect(ns: dict, outputs: list, budget: int) -> tuple[dict, dict, int]:
    """Sort the output variables into problems and tensors; return both and the budget left."""
    problems, tensors = {}, {}
    for name in outputs:
        problem, tensor = _output(ns, name, budget)
        if tensor is None:
            problems[name] = {"problem": problem}
        else:
            tensors[name] = tensor
            budget -= tensor.numel() * tensor.element_size()
    return problems, tensors, budget


def _output(ns: dict, name: str, budget: int) -> tuple[str | None, torch.Tensor | None]:
    """Return why an output variable cannot be returned, or the tensor to return."""
    if name not in ns:
        return "is not defined", None
    value = ns[name]
    try:
        problem = problem_with(value)
        size = 0 if problem else value.numel() * value.element_size()
        problem = problem or audit.output_problem(value)
        if not problem and size > budget:
            shape = tuple(value.shape)
            problem = f"is too large to return (shape {shape}, {size:,} bytes; limit {budget:,})"
        if problem:
            return problem, None
        return None, value.detach().resolve_conj().resolve_neg().contiguous()
    except BaseException as e:
        return f"could not be read ({type(e).__name__})", None


def problem_with(value: object) -> str | None:
    """Return why value cannot be returned as a tensor, or None if it can."""
    kind = type(value)
    if kind is not torch.Tensor:
        if isinstance(value, torch.Tensor):
            return f"is a tensor subclass {kind.__name__}, not a plain tensor"
        if value is None:
            return "is None, not a tensor"
        article = "an" if kind.__name__[:1].lower() in "aeiou" else "a"
        return f"is {article} {kind.__name__}, not a tensor"
    if value.is_nested or value.layout != torch.strided:
        return f"is a {value.layout} tensor, not a dense one"
    if value.device.type != "cpu":
        return f"is on device {value.device}, not the CPU"
    if value.dtype not in DTYPE_NAMES:
        return f"has dtype {value.dtype}, which the grader cannot read"
    return None


# A spare's warm-up before its run (`warm_up`): the kinds of operation a backward pass by hand
# dispatches (indexing, views, matrix products, reductions, powers, elementwise maths, in-place
# updates and scatters), on made-up tensors of the lecture's sizes, so that they, and the pages
# they write, are warm when the run arrives. Not the scenario's pass: that lives in its file.
WARM_SOURCE = """\
rows = table[picks].view(picks.shape[0], -1)
pre = rows @ left + shift
centred = pre - pre.mean(0, keepdim=True)
spread = (centred.pow(2).sum(0, keepdim=True) / (n - 1) + 1e-5) ** -0.5
act = torch.tanh(scale * centred * spread + offset)
out = act @ right + bias
top = out - out.max(1, keepdim=True).values
e = top.exp()
p = e * e.sum(1, keepdim=True) ** -1
lp = p.log()
g = torch.zeros_like(lp)
g[range(n), target] = -1.0 / n
gp = (1.0 / p) * g
go = F.softmax(out, 1)
go[range(n), target] -= 1
go /= n
gact = go @ right.T
gright = act.T @ go
gbias = go.sum(0)
gpre = (1.0 - act**2) * gact
gscale = (centred * spread * gpre).sum(0, keepdim=True)
gs = scale * gpre
gin = spread / n * (n * gs - gs.sum(0) - n / (n - 1) * centred * spread * (gs * centred).sum(0))
grows = (gin @ left.T).view(picks.shape[0], picks.shape[1], -1)
gtable = torch.zeros_like(table)
gtable.index_add_(0, picks.view(-1), grows.view(-1, table.shape[1]))
gtable[picks[0, 0]] += grows[0, 0]
same = torch.allclose(gtable, gtable) and (gright - gright).abs().max().item() == 0
"""
WARM_OUTPUTS = ("gp", "go", "gact", "gright", "gbias", "gscale", "gin", "gtable", "same", "no")


def warm_up(pending: Callable[[], bool], sink: int = 1) -> bool:
    """In a spare, confined, before its run: take a made-up job through a run's steps (inputs
    read, code run, outputs collected and written to `sink`, /dev/null there) so that their
    first-time costs, mostly pages copied from the zygote, are paid now and not on the run's
    critical path. Stop as soon as `pending()` says the run has arrived; return whether every
    step was taken."""
    g = torch.Generator().manual_seed(0)
    shapes = {"table": (27, 10), "left": (30, 64), "shift": (64,), "right": (64, 27),
              "bias": (27,), "scale": (1, 64), "offset": (1, 64)}  # fmt: skip
    made = {k: torch.randn(shape, generator=g) for k, shape in shapes.items()}
    made["picks"] = torch.randint(0, 27, (32, 3), generator=g)
    made["target"] = torch.randint(0, 27, (32,), generator=g)
    if pending():
        return False
    inputs = unpack_trusted(pack(made))
    code = compile(WARM_SOURCE, FILENAME, "exec", dont_inherit=True)
    ns = namespace({"name": "warm", "values": {"n": 32}, "outputs": []}, inputs)
    stdout, sys.stdout = sys.stdout, Capture(1000)
    try:
        if pending():
            return False
        error, _ = run_code(code, ns)
        problems, tensors, _ = collect(ns, list(WARM_OUTPUTS), 10**8)
        if pending():
            return False
        header = {"kind": "case", "name": "warm", "error": error, "returned": problems}
        write_frame(sink, {**header, "stdout": sys.stdout.take()}, views(tensors))
    finally:
        sys.stdout = stdout
    return error is None


def rehearse() -> None:
    """Run a tiny job in this process so lazy imports and caches are warm before forking."""
    x = torch.randn(4, 3)
    case = {"name": "warm", "values": {"n": 4}, "outputs": ["y", "z", "nope", "n"]}
    source = "y = (x @ x.T).tanh().sum(0, keepdim=True)\nz = F.softmax(x, 1)\nprint(y)\n1 / 0\n"
    linecache.cache[FILENAME] = (len(source), None, source.splitlines(True), FILENAME)
    ns = namespace(case, unpack_trusted(pack({"x": x})))
    stdout, sys.stdout = sys.stdout, Capture(1000)
    try:
        run_code(compile(source, FILENAME, "exec", dont_inherit=True), ns)
        problems, tensors, _ = collect(ns, case["outputs"], 10**6)
        unpack(views(tensors))
    finally:
        sys.stdout = stdout
        del linecache.cache[FILENAME]
