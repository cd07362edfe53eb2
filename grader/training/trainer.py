"""Exercise 4: train the MLP with the learner's own backward pass (the app's one door to it).

    >>> trainer = Trainer(dataset, cache_dir=Path("var/training"))
    >>> section = trainer.section({"dC": "dC = ..."})    # solved answers, else starters
    >>> check, job = trainer.train(section, TrainSettings(steps=20_000))
    >>> check.passed, job.status().step if job else None
    >>> job = trainer.start(section, settings)           # a run checked before (the app's way)

The gradient check runs the learner's section once in the sandbox and compares in this process;
training runs in a confined worker (job.py); the autograd reference trains once per
configuration, after the learner's first finished run, in a plain subprocess, and is kept on
disk (references.py).
"""

from __future__ import annotations

from pathlib import Path

from grader.course import Catalog, discover
from grader.sandbox import Sandbox, default_sandbox
from grader.training import gradcheck, section
from grader.training.job import TrainingJob
from grader.training.model import course_model
from grader.training.records import PRESETS, GradCheck, ReferenceStatus, TrainSettings
from grader.training.references import References

__all__ = ["PRESETS", "TrainSettings", "Trainer", "TrainingJob"]


class Trainer:
    """Exercise 4 on one dataset: the section, its gradient check, runs and references."""

    def __init__(
        self,
        dataset,
        cache_dir: Path,
        catalog: Catalog | None = None,
        sandbox: Sandbox | None = None,
    ):
        self.dataset = dataset
        self.catalog = catalog or discover()
        self.model = course_model(self.catalog)
        self._sandbox = sandbox
        self.references = References(Path(cache_dir) / "references", self.model)

    @property
    def sandbox(self) -> Sandbox:
        """Return the sandbox for gradient checks, starting the shared one on first use."""
        if self._sandbox is None:
            self._sandbox = default_sandbox()
        return self._sandbox

    def section(self, solved: dict[str, str]) -> str:
        """Return the backward section: the learner's solved answers, else each starter."""
        ids = [exercise_id for exercise_id, _ in section.PARTS]
        starters = {i: self.catalog.get(i).starter for i in ids}
        return section.compose(starters, solved)

    def program(self, settings: TrainSettings) -> tuple[str, str]:
        """Return the read-only loop before and after the section, for these settings."""
        sizes = self.dataset.vocab_size, self.dataset.block_size
        return section.program(settings, *sizes, self.model.program())

    def check(self, code: str, settings: TrainSettings) -> GradCheck:
        """Compare the section's seven gradients with autograd's on the run's first step."""
        wire = settings.wire(self.dataset.vocab_size, self.dataset.block_size)
        program, data = self.model.program(), (self.dataset.Xtr, self.dataset.Ytr)
        return gradcheck.check(
            code, program, wire, *data, self.sandbox, self.catalog.course.language
        )

    def start(self, code: str, settings: TrainSettings, alive=None, on_finish=None) -> TrainingJob:
        """Start a training run of the section in a confined worker, now (check it first).

        The one way a run starts: the app's local mode, the classroom's training worker and
        `train` all call it. `alive()` says whether the learner's session is still there (the
        run stops when it has been gone a while); `on_finish(report)` receives a finished
        run's report.
        """
        language = self.catalog.course.language  # the job checks the section again
        return TrainingJob(code, settings, self.dataset, alive, on_finish, self.model, language)

    def train(
        self, code: str, settings: TrainSettings, alive=None, on_finish=None
    ) -> tuple[GradCheck, TrainingJob | None]:
        """Check the section, then start training only if all seven gradients are right.

        `alive()` says whether the learner's session is still there (the run stops when it
        has been gone a while); `on_finish(report)` receives a finished run's report. The
        autograd reference trains after the run, so that each is timed without the other.
        """
        checked = self.check(code, settings)
        if not checked.passed:
            return checked, None

        def finished(report) -> None:
            if on_finish is not None:
                on_finish(report)
            self.reference(settings)

        return checked, self.start(code, settings, alive, finished)

    def reference(self, settings: TrainSettings, start: bool = True) -> ReferenceStatus:
        """Return the autograd reference for these settings, training it once if needed."""
        return self.references.status(self.dataset, settings, start)

    def close(self) -> None:
        """Stop every reference still training."""
        self.references.close()
