"""What a page shows about an exercise before any answer: lines, tensors and their shapes."""

from __future__ import annotations

from dataclasses import dataclass

from grader.course import Exercise
from grader.grading.cases import LECTURE, Runs
from grader.grading.reference import path_statements


@dataclass(frozen=True)
class TensorInfo:
    """A tensor in scope: its name, shape, the shape in words, and its role."""

    name: str
    shape: tuple[int, ...]
    symbolic: str
    role: str  # "forward", "given" (an upstream gradient) or "answer"


@dataclass(frozen=True)
class ExerciseView:
    """Everything a page needs to pose an exercise."""

    id: str
    title: str
    group: str
    scenario: str
    prompt: str
    starter: str
    hints: tuple[str, ...]
    answer: str
    forward_lines: tuple[str, ...]
    tensors: tuple[TensorInfo, ...]
    explain: str = ""  # the why card, Markdown, shown once solved
    derivation: tuple[str, ...] = ()  # steps to open one at a time
    lecture_url: str = ""  # where the lecture video teaches it, if it does
    lecture_label: str = ""  # "1:05:17, Bessel's correction in batchnorm", or "about 0:22:01"
    forward_code: tuple[str, ...] = ()  # forward_lines without their comments
    forward_notes: tuple[str, ...] = ()  # the lecture's reason for each line, or ""

    @property
    def prompt_quotes_forward(self) -> bool:
        """Return whether the prompt already quotes every forward line (shown once, then)."""
        return bool(self.forward_code) and all(c in self.prompt for c in self.forward_code)


def describe(exercise: Exercise, runs: Runs) -> ExerciseView:
    """Return the view of an exercise on one dataset."""
    scenario = exercise.scenario
    run = runs.get(scenario, LECTURE)
    parts = exercise.parts()
    targets = [p.target for p in parts]
    on_paths = {s for t in targets for s in path_statements(scenario, t, exercise.given)}
    statements = [s for s in scenario.forward if s in on_paths]
    lines = tuple(_line(s) for s in statements)
    reads = [r for s in statements for r in s.reads if r in run.values]
    names = list(dict.fromkeys([*targets, *reads, *exercise.given]))
    if exercise.scope is not None:
        names = [n for n in names if n in exercise.scope or n in (*targets, *exercise.given)]
    tensors = [_info(scenario, run, n, "forward") for n in names]
    tensors += [_info(scenario, run, g, "given", f"d{g}") for g in exercise.given]
    tensors += [_info(scenario, run, p.target, "answer", p.answer) for p in parts]
    return ExerciseView(
        exercise.id,
        exercise.title,
        exercise.group,
        scenario.title,
        exercise.prompt,
        exercise.starter,
        exercise.hints,
        exercise.answer,
        lines,
        tuple(tensors),
        exercise.explain,
        exercise.derivation,
        *_lecture(exercise.lecture),
        forward_code=tuple(s.source for s in statements),
        forward_notes=tuple(s.note for s in statements),
    )


def _lecture(link) -> tuple[str, str]:
    """Return the address and the label of the lecture's chapter, or two empty strings."""
    if link is None:
        return "", ""
    return link.url, link.label


def _line(stmt) -> str:
    """Return a statement with its shape comment and the lecture's reason, if any."""
    comment = " ".join(part for part in (stmt.shape, stmt.note) if part)
    return f"{stmt.source}  # {comment}" if comment else stmt.source


def _info(scenario, run, name: str, role: str, shown: str | None = None) -> TensorInfo:
    """Describe one tensor of the lecture configuration."""
    shape = tuple(run.values[name].shape)
    symbolic = scenario.statement(name).shape
    return TensorInfo(shown or name, shape, symbolic, role)
