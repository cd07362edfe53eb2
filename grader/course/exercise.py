"""One exercise: what it asks (`Exercise`), and how its file `NN_slug/NN_id.toml` is read and
checked against its scenario. Its reference answer lives in its course's `solutions/NN_slug/id.py`:
the course folder's own `solutions/`, unless the course's course.toml names another.
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from grader.course.lecture import LectureLink, parse_lecture
from grader.course.mistakes import Mistake, read_mistakes
from grader.course.scenario import Scenario
from grader.course.schema import SchemaError, check_keys, did_you_mean, require

SOLUTIONS = "solutions"  # the folder in a course that holds its reference answers, by default
FILE_NAME = re.compile(r"^(\d+)_([A-Za-z_][A-Za-z0-9_]*)\.toml$")
EXERCISE_KEYS = {
    "title": str,
    "target": str,
    "answer": str,
    "given": list,
    "scope": list,
    "group": str,
    "prompt": str,
    "starter": str,
    "hints": list,
    "mistakes": list,
    "atol": float,  # per-exercise tolerance, as torch.allclose applies it (default 1e-8)
    "rtol": float,  # (default 1e-5)
    "explain": str,  # the why card shown after a solve (Markdown)
    "derivation": list,  # steps to open one at a time, for the "in one go" exercises
    "lecture": str,  # where the video teaches it; overrides the scenario's
    "answers": list,  # several gradients to write at once, e.g. ["dq", "dk"]
    "dtype": str,  # "float32" or "float64": the dtype of the inputs and of the answer
    "parts": dict,  # a fused formula's terms in the lecture's words: `direct`, then by statistic
}
DTYPES = ("float32", "float64")
# The lecture's (atol, rtol), as torch.allclose applies them: |got - want| <= atol + rtol*|want|
TOLERANCE = (1e-8, 1e-5)
REQUIRED = ("title", "target", "prompt", "starter", "hints")


@dataclass(frozen=True)
class Exercise:
    """One gradient to write: `answer` = d(target), given the gradients of `given`."""

    id: str
    path: Path
    scenario: Scenario
    title: str
    target: str
    answer: str
    given: tuple[str, ...]
    scope: tuple[str, ...] | None
    group: str
    prompt: str
    starter: str
    hints: tuple[str, ...]
    mistakes: tuple[Mistake, ...]
    tolerance: tuple[float, float] | None = None  # (atol, rtol) when the file sets either
    explain: str = ""
    derivation: tuple[str, ...] = ()
    lecture: LectureLink | None = None  # its own `lecture` or its scenario's
    solutions: Path = Path(SOLUTIONS)  # its course's answers' folder (course.toml `solutions`)

    @property
    def taught_in_lecture(self) -> bool:
        """Return whether the lecture teaches it: it then needs a why card and three hints."""
        return self.lecture is not None

    answers: tuple[str, ...] = ()  # every variable to write, when there are several
    dtype: str = ""  # the dtype of the inputs and the answer; "" keeps the scenario's
    named_parts: tuple[tuple[str, str], ...] = ()  # a fused formula's terms: ("", phrase), ...
    version: str = ""  # a hash of the exercise file and its scenario file: changes with either

    def parts(self) -> tuple[Exercise, ...]:
        """Return one exercise per answer, each graded on its own with the same inputs
        (`answers = ["dq", "dk"]` gives the parts `...:dq` and `...:dk`)."""
        if not self.answers:
            return (self,)
        return tuple(
            replace(self, id=f"{self.id}:{a}", target=a[1:], answer=a, answers=())
            for a in self.answers
        )

    @property
    def solution_path(self) -> Path:
        """Return where the reference answer lives: in its course's answers' folder."""
        return self.solutions / self.scenario.slug / f"{self.id}.py"

    def solution(self) -> str:
        """Return the reference answer's code (OSError if missing: see missing_solution)."""
        return self.solution_path.read_text(encoding="utf-8")


def solutions_root(course: Path, solutions: str = SOLUTIONS) -> Path:
    """Return the folder of a course's reference answers: the `solutions` its course.toml
    names (a folder inside the course folder or beside it), by default its own `solutions/`;
    never another course's unless course.toml says so."""
    return Path(os.path.normpath(course / solutions))


def missing_solution(exercise: Exercise) -> str:
    """Say that an exercise's reference answer is missing, and where it belongs."""
    return (
        f"its reference answer is missing: write `{exercise.answer}` = ... in "
        f"{exercise.solution_path} (a course keeps its answers in its own `solutions/` folder, or "
        "where its course.toml's `solutions` says)"
    )


def load_exercise(path: Path, scenario: Scenario, solutions: Path | None = None) -> Exercise:
    """Read and check one exercise file; raise SchemaError naming the file and field. Its
    answer is in `solutions` (default: the course folder's own `solutions/`)."""
    where = str(path)
    match = FILE_NAME.match(path.name)
    require(match is not None, where, "file name must look like `NN_id.toml`")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise SchemaError(where, f"is not valid TOML: {err}") from err
    check_keys(raw, EXERCISE_KEYS, REQUIRED, where)
    target = raw["target"]
    missing = f"`{target}` is not in the scenario{did_you_mean(target, scenario.names())}"
    require(target in scenario.names(), f"{where}: target", missing)
    require(
        scenario.differentiable(target),
        f"{where}: target",
        f"`{target}` has no gradient (drawn in setup, or a mask, indices or a comparison)",
    )
    answers = _answers(raw, scenario, where)
    given = tuple(raw.get("given", _consumers(scenario, [a[1:] for a in answers] or [target])))
    exercise = Exercise(
        id=match.group(2),
        path=path,
        scenario=scenario,
        title=raw["title"],
        target=target,
        answer=raw.get("answer", f"d{target}"),
        given=given,
        scope=tuple(raw["scope"]) if "scope" in raw else None,
        group=raw.get("group", ""),
        prompt=raw["prompt"].strip(),
        starter=raw["starter"].strip() + "\n",
        hints=tuple(raw["hints"]),
        mistakes=tuple(read_mistakes(raw.get("mistakes", []), where)),
        tolerance=_tolerance(raw, where),
        explain=raw.get("explain", "").strip(),
        derivation=tuple(raw.get("derivation", ())),
        lecture=parse_lecture(raw["lecture"], where) if "lecture" in raw else scenario.lecture,
        answers=answers,
        dtype=raw.get("dtype", ""),
        named_parts=_parts(raw.get("parts", {}), scenario, where),
        version=content_version(path, scenario.path),
        solutions=solutions or solutions_root(path.parents[1]),
    )
    _check_exercise(exercise, where)
    return exercise


def content_version(*paths: Path) -> str:
    """Return a short hash of the files' bytes, in order: a new version whenever one changes."""
    digest = hashlib.sha256()
    for path in paths:
        data = path.read_bytes()
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()[:12]


def _consumers(scenario: Scenario, targets: list[str]) -> tuple[str, ...]:
    """Return the consumers of any of the targets that are not targets themselves."""
    found = [c for t in targets for c in scenario.consumers(t) if c not in targets]
    return tuple(dict.fromkeys(found))


def _answers(raw: dict, scenario: Scenario, where: str) -> tuple[str, ...]:
    """Read `answers`: `d` + a tensor with a gradient each, the target's among them."""
    if "answers" not in raw:
        return ()
    answers = raw["answers"]
    at = f"{where}: answers"
    require("answer" not in raw, at, "set `answers` or `answer`, not both")
    require(len(answers) >= 2, at, "lists at least two gradients (or use `answer`)")
    for name in answers:
        ok = isinstance(name, str) and name.startswith("d")
        require(ok and scenario.differentiable(name[1:]), at, f"`{name}` is not `d` + a tensor")
    require(len(set(answers)) == len(answers), at, "lists a gradient twice")
    require(f"d{raw['target']}" in answers, at, f"must include `d{raw['target']}`, the target's")
    return tuple(answers)


def _tolerance(raw: dict, where: str) -> tuple[float, float] | None:
    """Read `atol` and `rtol` (either may be left at its default); both must be in [0, 1)."""
    if "atol" not in raw and "rtol" not in raw:
        return None
    atol, rtol = raw.get("atol", TOLERANCE[0]), raw.get("rtol", TOLERANCE[1])
    for key, value in (("atol", atol), ("rtol", rtol)):
        require(
            0.0 <= value < 1.0, f"{where}: {key}", f"must be at least 0 and below 1, got {value}"
        )
    return atol, rtol


def _parts(raw: dict, scenario: Scenario, where: str) -> tuple[tuple[str, str], ...]:
    """Return a fused formula's terms as named: `direct` (every statistic held constant) is
    the key "", each other key a statistic of the scenario; every name is a string."""
    for key, phrase in raw.items():
        where_key = f"{where}: parts.{key}"
        require(key == "direct" or key in scenario.names(), where_key, "is not in the scenario")
        require(isinstance(phrase, str) and phrase.strip(), where_key, "must be a phrase")
    return tuple(("" if k == "direct" else k, v.strip()) for k, v in raw.items())


def _check_exercise(exercise: Exercise, where: str) -> None:
    """Check the fields that depend on the scenario."""
    names = exercise.scenario.names()
    require(len(exercise.hints) >= 2, f"{where}: hints", "needs at least two hints")
    require(all(isinstance(h, str) for h in exercise.hints), f"{where}: hints", "must be strings")
    _check_teaching(exercise, where)
    require(exercise.given, f"{where}: given", f"`{exercise.target}` has no consumers")
    require(
        exercise.dtype in ("", *DTYPES),
        f"{where}: dtype",
        f"must be one of {', '.join(DTYPES)}, got {exercise.dtype!r}",
    )
    for name in exercise.given:
        missing = f"`{name}` is not in the scenario{did_you_mean(name, names)}"
        require(name in names, f"{where}: given", missing)
        require(
            exercise.scenario.differentiable(name),
            f"{where}: given",
            f"`{name}` has no gradient to give (a mask, indices or a comparison)",
        )
    sizes = exercise.scenario.sizes | exercise.scenario.alt_sizes
    for name in exercise.scope or ():
        require(
            name in names or name in sizes,
            f"{where}: scope",
            f"`{name}` is not in the scenario{did_you_mean(name, (*names, *sizes))}",
        )


def _check_teaching(exercise: Exercise, where: str) -> None:
    """Check the why card, the derivation and, for the lecture's exercises, what they need."""
    steps = exercise.derivation
    require(
        all(isinstance(s, str) and s.strip() for s in steps),
        f"{where}: derivation",
        "must be non-empty strings",
    )
    require(len(steps) != 1, f"{where}: derivation", "needs at least two steps (or none)")
    if not exercise.taught_in_lecture:
        return
    require(
        len(exercise.hints) >= 3,
        f"{where}: hints",
        f"a lecture exercise needs at least three hints, from shapes to nearly the answer; "
        f"got {len(exercise.hints)}",
    )
    require(
        bool(exercise.explain),
        f"{where}: explain",
        "a lecture exercise needs a why card: why the answer is what it is and the rule it shows",
    )
