"""Exercise 4, the training wing: train the MLP with the learner's own backward pass.

    >>> from grader.training import Trainer, TrainSettings
    >>> trainer = Trainer(dataset, cache_dir=Path("var/training"))
    >>> check, job = trainer.train(trainer.section(solved), TrainSettings(steps=20_000))

trainer.py is the app's one door; section.py builds the learner's section and the read-only
loop; gradcheck.py compares its first step with autograd; job.py follows a run in a confined
worker (grader/sandbox/training/); evaluate.py scores what comes back; autograd.py and
references.py train and keep the autograd reference; records.py holds the plain data.
Names are imported on first use, so `from grader.training import TrainSettings` loads no torch.
"""

from __future__ import annotations

import importlib

_HOMES = {
    "Trainer": "grader.training.trainer",
    "TrainingJob": "grader.training.job",
    "PRESETS": "grader.training.records",
    "CURVE_POINTS": "grader.training.records",
    "Evaluation": "grader.training.records",
    "GradCheck": "grader.training.records",
    "GradRow": "grader.result",
    "LoopAdvice": "grader.training.records",
    "ReferenceStatus": "grader.training.records",
    "TrainingReport": "grader.training.records",
    "TrainingStatus": "grader.training.records",
    "TrainSettings": "grader.training.records",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str):
    """Import a public name from its module on first use."""
    if name not in _HOMES:
        raise AttributeError(f"module 'grader.training' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value
