"""Prove exercise files: schema, solution passes, starter fails, zeros fail, mistakes caught."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from data import default_dataset
from grader.course import EXERCISES_DIR, Exercise, discover, missing_solution
from grader.feedback import voice
from grader.grading import Grader
from grader.misconceptions import Found


@dataclass(frozen=True)
class Finding:
    """One problem found in an exercise: where (file and field) and what."""

    where: str
    problem: str


def zeros_answer(exercise: Exercise, grader: Grader) -> str:
    """Return an answer that fills the gradient (every gradient it asks for) with zeros."""
    if exercise.answers:
        return "".join(zeros_answer(part, grader) for part in exercise.parts())
    visible = exercise.scope is None or exercise.target in exercise.scope
    if visible:
        return f"{exercise.answer} = torch.zeros_like({exercise.target})\n"
    tensors = grader.describe(exercise.id.split(":")[0]).tensors  # a part's: its exercise's
    shape = next(t.shape for t in tensors if t.role == "answer" and t.name == exercise.answer)
    return f"{exercise.answer} = torch.zeros({tuple(shape)})\n"


def prove(exercise: Exercise, grader: Grader) -> list[Finding]:
    """Grade the exercise's solution, starter, zeros and every listed mistake."""
    where = str(exercise.path)
    from grader.proving.scenariocheck import check_scenario, given_cuts

    declared = [*check_scenario(exercise.scenario), *given_cuts(exercise)]
    findings = [Finding(w, p) for w, p in declared]
    if findings:  # the grades below would only repeat what is wrong with the scenario
        return findings
    if not exercise.solution_path.exists():
        return [Finding(f"{where}: solution", missing_solution(exercise))]
    solved = grader.grade(exercise.id, exercise.solution())
    if not solved.solved:
        findings.append(Finding(f"{exercise.solution_path}", f"fails: {_explain(solved)}"))
    if grader.grade(exercise.id, exercise.starter).solved:
        findings.append(Finding(f"{where}: starter", "passes every check; it must fail"))
    if grader.grade(exercise.id, zeros_answer(exercise, grader)).solved:
        findings.append(Finding(f"{where}: (zeros)", "an all-zeros answer passes every check"))
    for i, mistake in enumerate(exercise.mistakes, start=1):  # as an author counts the blocks
        result = grader.grade(exercise.id, mistake.code)
        if result.solved or not _shows(result, mistake):
            got = "it passes" if result.solved else f"feedback was: {_explain(result)}"
            findings.append(
                Finding(f"{where}: [[mistakes]] {i}", f"is not caught with its message; {got}")
            )
    return findings


def _shows(result, mistake) -> bool:
    """Return whether a check says the mistake's message: as its hint, or as the diagnosis
    that opens its message (the voice's `diagnosis`)."""
    said = voice.diagnosis(Found(mistake.misconception, said=mistake.message))
    return any(mistake.message == c.hint or (said and said in c.message) for c in result.checks)


def _explain(result) -> str:
    """Return the failing check's message and hint."""
    failed = [c for c in result.checks if c.status == "fail"]
    return " ".join(f"{c.message} {c.hint}".strip() for c in failed) or "no check failed"


def validate(path: Path | None = None, dataset=None, sandbox=None) -> tuple[int, list[Finding]]:
    """Validate the exercises under path (a course folder, one scenario folder or one exercise
    file), and every scenario there, with or without exercises; report only that scope."""
    root, only = _root(path)
    catalog = discover(root)
    scope = _scope(only)
    findings = [Finding(e.where, e.problem) for e in catalog.errors if scope(e.where)]
    from grader.proving.scenariocheck import check_scenario

    for scenario in catalog.scenarios:
        if scope(str(scenario.path)):
            findings.extend(Finding(w, p) for w, p in check_scenario(scenario))
    grader = Grader(dataset or default_dataset(), catalog, sandbox)
    chosen = [e for e in catalog.exercises if only is None or only in (e.path, e.path.parent)]
    from grader.proving.prompts import prompt_findings

    for exercise in chosen:
        findings.extend(Finding(w, p) for w, p in prompt_findings(exercise))
        findings.extend(f for f in prove(exercise, grader) if f not in findings)
    return len(chosen), findings


def _scope(only: Path | None):
    """Return whether a finding's place is in the scope asked: the whole course, a scenario's
    folder, or one exercise file and its scenario's file."""
    if only is None:
        return lambda where: True
    if only.is_dir():
        prefixes = (f"{only}{os.sep}",)
    else:
        prefixes = (str(only), str(only.parent / "scenario.toml"))
    return lambda where: any(f"{where}:".startswith((f"{p}:", p)) for p in prefixes)


def _root(path: Path | None) -> tuple[Path, Path | None]:
    """Return the exercises root to discover and the file or folder to restrict to."""
    if path is None:
        return EXERCISES_DIR, None
    path = path.resolve()
    if (path / "scenario.toml").exists():
        return path.parent, path
    if path.is_file():
        return path.parent.parent, path
    return path, None
