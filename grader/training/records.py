"""What Exercise 4 takes and returns: settings, the gradient check, training status and reports.

Plain, frozen data that the app only renders (see result.py for the other exercises).

    >>> TrainSettings(steps=20_000, decay_step=10_000).wire(vocab_size=27, block_size=3)["n"]
    32
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields

from grader.result import GRADER_FAILED, NOT_SOLVED, SOLVED, Facts, GradRow, LearnerError

CURVE_POINTS = 200  # the lecture plots 200 means of 1,000 steps each
LIMITS = {  # field: (smallest, largest)
    "steps": (1, 1_000_000),
    "batch_size": (2, 4096),
    "learning_rate": (1e-6, 10.0),
    "decayed_rate": (1e-6, 10.0),
    "decay_step": (0, 1_000_000),
    "seed": (0, 2**63 - 1),
    "n_hidden": (1, 2048),
    "n_embd": (1, 256),
}


@dataclass(frozen=True)
class TrainSettings:
    """The lecture's training settings: steps, batch, the step-decay schedule, seed and sizes."""

    steps: int = 200_000
    batch_size: int = 32
    learning_rate: float = 0.1
    decayed_rate: float = 0.01
    decay_step: int = 100_000
    seed: int = 2147483647
    n_hidden: int = 200
    n_embd: int = 10

    def __post_init__(self):
        for f in fields(self):
            value, (low, high) = getattr(self, f.name), LIMITS[f.name]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"`{f.name}` must be a number: got {value!r}.")
            if f.type == "int" and not isinstance(value, int):
                raise ValueError(f"`{f.name}` must be a whole number: got {value!r}.")
            if not (math.isfinite(value) and low <= value <= high):
                raise ValueError(f"`{f.name}` must be between {low:g} and {high:g}: got {value!r}.")

    @property
    def bucket(self) -> int:
        """Return how many steps each point of a loss curve averages."""
        return max(1, self.steps // CURVE_POINTS)

    def wire(self, vocab_size: int, block_size: int) -> dict:
        """Return the settings as the training loop reads them, with the dataset's sizes."""
        sizes = {"n": self.batch_size, "vocab_size": vocab_size, "block_size": block_size}
        return asdict(self) | sizes


PRESETS = {
    "lecture": TrainSettings(),
    "quick": TrainSettings(steps=20_000, decay_step=10_000),
}


@dataclass(frozen=True)
class GradCheck(Facts):
    """The learner's seven gradients against autograd on one batch; training needs `passed`."""

    passed: bool
    rows: tuple[GradRow, ...]
    root_cause: str | None
    message: str
    error: LearnerError | None = None
    stdout: str = ""

    @property
    def status(self) -> str:
        """Return solved, not_solved or grader_failed."""
        return GRADER_FAILED if self.fault else SOLVED if self.passed else NOT_SOLVED


@dataclass(frozen=True)
class Evaluation:
    """A trained model after batchnorm calibration: split losses and sampled names."""

    train_loss: float
    val_loss: float
    samples: tuple[str, ...]


@dataclass(frozen=True)
class LoopAdvice:
    """A training step's time with a Python loop for dC and with index_add_, measured."""

    line: int
    loop_ms: float  # the lecture's step with its double loop for dC
    index_add_ms: float  # the same step with index_add_
    steps_per_s: float  # the run's own speed
    projected: float  # its speed scaled by loop_ms / index_add_ms


@dataclass(frozen=True)
class TrainingReport:
    """How a training run ended, and what the trained model does (when it finished)."""

    settings: TrainSettings
    state: str  # "finished", "stopped" or "failed"
    message: str
    steps_done: int
    elapsed: float
    steps_per_s: float
    curve: tuple[float, ...]
    evaluation: Evaluation | None = None
    advice: LoopAdvice | None = None
    notes: tuple[str, ...] = ()
    error: LearnerError | None = None
    stdout: str = ""


@dataclass(frozen=True)
class TrainingStatus:
    """A training run as it goes: progress, speed and the log10 loss curve so far."""

    state: str  # "starting", "running", "finished", "stopped" or "failed"
    step: int
    steps: int
    steps_per_s: float
    seconds_left: float | None
    curve: tuple[float, ...]
    message: str = ""
    report: TrainingReport | None = None

    @property
    def active(self) -> bool:
        """Return whether the run is still starting or running."""
        return self.state in ("starting", "running")

    @property
    def fraction(self) -> float:
        """Return the share of the steps done, from 0 to 1."""
        return min(self.step / self.steps, 1.0) if self.steps else 0.0


@dataclass(frozen=True)
class ReferenceStatus:
    """The autograd-trained reference for one configuration: running, done or failed."""

    state: str  # "running", "done", "failed" or "missing"
    step: int
    steps: int
    message: str = ""
    steps_per_s: float = 0.0
    curve: tuple[float, ...] = field(default=())
    evaluation: Evaluation | None = None
