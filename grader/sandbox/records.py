"""Plain data that crosses the sandbox boundary: limits, cases and outcomes."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from .errors import LearnerError

# Tensor dtypes that may cross the boundary in either direction, by wire name.
DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float64": torch.float64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
DTYPE_NAMES: dict[torch.dtype, str] = {v: k for k, v in DTYPES.items()}


@dataclass(frozen=True)
class Limits:
    """Resource limits for one run of learner code (all cases share them)."""

    cpu_seconds: float = 5.0
    wall_seconds: float = 10.0
    memory_bytes: int = 2 * 1024**3  # above the zygote's size: address space + the work dir
    output_bytes: int = 64 * 1024  # captured stdout+stderr kept (rest dropped, flagged)
    result_bytes: int = 64 * 1024**2  # total tensor bytes the worker may return
    file_bytes: int = 1024**2
    open_files: int = 64


@dataclass(frozen=True)
class Load:
    """How busy a sandbox is now: its slots, the runs holding one, the runs admitted and
    waiting for one, its zygotes whose process is running (a dead one is started again
    before the next run on it), and those that take no runs yet (each is held until the one
    before it is ready, then starts)."""

    slots: int
    busy: int
    waiting: int
    alive: int
    held: int = 0


@dataclass(frozen=True)
class Case:
    """One execution of the code in a fresh namespace."""

    name: str
    tensors: dict[str, torch.Tensor] = field(default_factory=dict)
    values: dict[str, int | float | str | list] = field(default_factory=dict)
    outputs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Returned:
    """What an output variable held: a tensor, or the reason there is none."""

    name: str
    tensor: torch.Tensor | None
    problem: str | None


@dataclass(frozen=True)
class CaseOutcome:
    """The result of one case: its exception, its outputs and what it printed."""

    name: str
    error: LearnerError | None
    returned: dict[str, Returned]
    stdout: str


@dataclass(frozen=True)
class RunOutcome:
    """The result of one run; `message` is learner-facing, `log` is for the server log."""

    status: str
    message: str
    cases: tuple[CaseOutcome, ...]
    elapsed: float
    log: str = ""
    autograd: bool = False  # forbidden because it reached autograd (a fact, not the message)
