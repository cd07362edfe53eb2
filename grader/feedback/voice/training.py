"""Exercise 4: training with the learner's own backward pass."""

from __future__ import annotations

__all__ = [
    "duration",
    "loop_advice",
    "model_not_finite",
    "nonfinite_loss",
    "reference_running",
    "speed_comparison",
    "training_bad_gradient",
    "training_busy",
    "training_check_passed",
    "training_check_root",
    "training_finished",
    "training_interrupted",
    "training_queued",
    "training_raised",
    "training_session_ended",
    "training_stopped",
    "training_stopped_queued",
    "training_too_slow",
    "unfinished",
]


def duration(seconds: float) -> str:
    """Format a duration the way people say it: 8.2 s, 3 min 5 s, 1 h 2 min."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s"
    return f"{minutes // 60} h {minutes % 60} min"


def _listed(names: tuple[str, ...]) -> str:
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def unfinished(names: tuple[str, ...]) -> str:
    verb = "is" if len(names) == 1 else "are"
    return f"{_listed(names)} {verb} still `...`; write the missing gradients before training."


def training_check_passed() -> str:
    return "All seven gradients match autograd; training can start."


def training_check_root(name: str) -> str:
    return f"`{name}` does not match autograd; training starts once all seven gradients do."


def training_raised(kind: str, line: int | None, step: int) -> str:
    where = f" on line {line}" if line else ""
    return f"Your code raised {kind}{where} at step {step:,}:"


def training_bad_gradient(detail: str, step: int) -> str:
    return f"{detail} Training stopped at step {step:,}."


def nonfinite_loss(value: str, step: int) -> str:
    return (
        f"`loss` is {value} at step {step:,}, so training stopped. Hint: a gradient is wrong "
        "or too large for the learning rate; check the gradients again or lower the rate."
    )


def training_stopped(step: int, steps: int) -> str:
    return f"Training stopped at step {step:,} of {steps:,}, as you asked."


def training_session_ended(step: int) -> str:
    return f"Training stopped at step {step:,}: the browser session ended."


def training_interrupted(step: int, steps: int) -> str:
    return (
        f"Training was interrupted at step {step:,} of {steps:,}: the worker running it stopped"
        " answering. Start it again when you are ready."
    )


def training_queued(position: int) -> str:
    ahead = "no run" if position <= 1 else f"{position - 1:,} run" + ("s" if position > 2 else "")
    return (
        f"Your run is waiting for a free worker: position {position:,} in the queue"
        f" ({ahead} ahead)."
    )


def training_stopped_queued() -> str:
    return "Training stopped before it started, as you asked."


def training_finished(steps: int, seconds: float) -> str:
    return f"Training finished: {steps:,} steps in {duration(seconds)}."


def training_too_slow(limit: float, steps_per_s: float, steps: int) -> str:
    need = f"; at {steps_per_s:,.0f} steps/s, {steps:,} steps take about "
    need += duration(steps / steps_per_s) if steps_per_s > 0 else "longer"
    return (
        f"Training did not finish within {duration(limit)}{need}. Hint: make your backward "
        "pass faster, or train for fewer steps."
    )


def training_busy(count: int) -> str:
    return f"The trainer is busy with {count} runs; try again when one of them finishes."


def model_not_finite() -> str:
    return "The trained parameters hold nan or inf values, so the model cannot be evaluated."


def loop_advice(line: int, loop_ms: float, add_ms: float, rate: float, projected: float) -> str:
    measured = (
        f"`dC` is accumulated in a Python loop (line {line}): measured here, a training step "
        f"takes {loop_ms:.2f} ms with the lecture's double loop and {add_ms:.2f} ms with "
        f"`index_add_`."
    )
    if projected < 1.1 * rate:  # a busy machine can hide the loop's cost; promise no speed-up
        return (
            f"{measured} On this machine the loop cost little this time; `index_add_` on the "
            f"flattened `Xb` and `demb` is still the one-line form."
        )
    return (
        f"{measured} Hint: with `index_add_` on the flattened `Xb` and `demb`, your training "
        f"would run at about {projected:,.0f} steps/s instead of {rate:,.0f} "
        f"({projected / rate:.1f}x faster)."
    )


def speed_comparison(yours: float, autograd: float) -> str:
    ratio = yours / autograd
    faster = f"{ratio:.2f}x faster" if ratio >= 1 else f"{1 / ratio:.2f}x slower"
    return (
        f"Your backward pass trained at {yours:,.0f} steps/s and autograd's at "
        f"{autograd:,.0f} steps/s: yours is {faster}."
    )


def reference_running(step: int, steps: int) -> str:
    return f"The autograd reference is training with the same settings: step {step:,} of {steps:,}."
