"""Exercise 4, the training wing: train the MLP with the learner's own backward pass.

    >>> from grader.training import Trainer, TrainSettings
    >>> trainer = Trainer(dataset, cache_dir=Path("var/training"))
    >>> check, job = trainer.train(trainer.section(solved), TrainSettings(steps=20_000))

trainer.py is the app's one door; model.py derives the MLP Exercise 4 trains from its scenario
(the one place it is written); section.py builds the learner's section and the read-only loop;
gradcheck.py compares its first step with autograd; job.py follows a run in a confined
worker (grader/sandbox/training/); evaluate.py scores what comes back; autograd.py and
references.py train and keep the autograd reference; records.py holds the plain data.
Names are imported on first use, so `from grader.training import TrainSettings` loads no torch.
"""

from __future__ import annotations

from grader.lazy import lazy_names

_HOMES = {
    "Trainer": "grader.training.trainer",
    "TrainingJob": "grader.training.job",
    "PRESETS": "grader.training.records",
    "CURVE_POINTS": "grader.training.records",
    "Evaluation": "grader.training.records",
    "GradCheck": "grader.training.records",
    "GradRow": "grader.result",
    "LoopAdvice": "grader.training.records",
    "PARTS": "grader.training.section",
    "ReferenceStatus": "grader.training.records",
    "TrainingReport": "grader.training.records",
    "TrainingStatus": "grader.training.records",
    "TrainSettings": "grader.training.records",
}
__all__ = sorted(_HOMES)

__getattr__ = lazy_names("grader.training", _HOMES)
