"""Exercises are data: discover, read and check the instructor files under `exercises/`.

Layout of a course folder: `NN_slug/scenario.toml` holds a forward program; every other
`NN_slug/NN_id.toml` beside it is one exercise on that program, and its reference answer lives
in the course's own `solutions/NN_slug/id.py`. Names sort in teaching order.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.course.course import Course, read_course
from grader.course.lecture import LectureLink, parse_lecture
from grader.course.scenario import Scenario, load_scenario
from grader.course.schema import SchemaError, check_keys, require
from grader.misconceptions import IDS, LISTED_MISTAKE

ROOT = Path(__file__).resolve().parents[2]
EXERCISES_DIR = ROOT / "exercises"
SOLUTIONS = "solutions"  # the folder in a course that holds its reference answers
SOLUTIONS_DIR = EXERCISES_DIR / SOLUTIONS  # the project's course's answers
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
MISTAKE_KEYS = {"code": str, "message": str, "misconception": str}


@dataclass(frozen=True)
class Mistake:
    """A wrong answer an instructor expects, recognised by its output."""

    code: str
    message: str
    misconception: str = LISTED_MISTAKE  # its id in grader/misconceptions.py


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
        """Return where the reference answer lives: in its course's `solutions/` folder."""
        return solutions_root(self.path.parents[1]) / self.scenario.slug / f"{self.id}.py"

    def solution(self) -> str:
        """Return the reference answer's code (OSError if missing: see missing_solution)."""
        return self.solution_path.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Catalog:
    """Everything discovered under a folder, with the files that could not be read."""

    scenarios: tuple[Scenario, ...]
    exercises: tuple[Exercise, ...]
    errors: tuple[SchemaError, ...] = field(default=())
    course: Course = field(default_factory=Course)

    def get(self, exercise_id: str) -> Exercise:
        """Return the exercise with this id, or raise KeyError listing the known ids."""
        for exercise in self.exercises:
            if exercise.id == exercise_id:
                return exercise
        known = ", ".join(e.id for e in self.exercises)
        raise KeyError(f"no exercise `{exercise_id}`; known: {known}")

    def scenario(self, slug: str) -> Scenario:
        """Return the scenario in folder `slug`."""
        return next(s for s in self.scenarios if s.slug == slug)

    def withdraw(self, errors, exercises=(), scenarios=()) -> Catalog:
        """Return the catalog without these exercise ids and scenario slugs (and the exercises
        on those scenarios), with errors saying why added to its problems."""
        gone = set(scenarios)
        kept = tuple(
            e for e in self.exercises if e.id not in set(exercises) and e.scenario.slug not in gone
        )
        left = tuple(s for s in self.scenarios if s.slug not in gone)
        return replace(self, scenarios=left, exercises=kept, errors=self.errors + tuple(errors))


def solutions_root(course: Path) -> Path:
    """Return the folder of a course's reference answers: its own `solutions/`, never another
    course's (nor the project's)."""
    return course / SOLUTIONS


def missing_solution(exercise: Exercise) -> str:
    """Say that an exercise's reference answer is missing, and where it belongs."""
    return (
        f"its reference answer is missing: write `{exercise.answer}` = ... in "
        f"{exercise.solution_path} (a course keeps its answers in its own `solutions/` folder)"
    )


def discover(root: Path = EXERCISES_DIR) -> Catalog:
    """Read every scenario and exercise under root; collect errors instead of raising."""
    scenarios, exercises, errors = [], [], []
    for folder in sorted(p for p in root.iterdir() if _is_scenario_folder(p)):
        try:
            scenario = load_scenario(folder / "scenario.toml")
        except (SchemaError, OSError) as err:
            errors.append(_as_schema_error(folder / "scenario.toml", err))
            continue
        scenarios.append(scenario)
        for path in sorted(folder.glob("*.toml")):
            if path.name == "scenario.toml":
                continue
            try:
                exercises.append(load_exercise(path, scenario))
            except (SchemaError, OSError) as err:
                errors.append(_as_schema_error(path, err))
    problems = _duplicate_ids(exercises) + _reserved_ids(exercises)
    errors.extend(problems)
    withdrawn = {p.where for p in problems}
    kept = tuple(e for e in exercises if str(e.path) not in withdrawn)
    course = _course(root, errors)
    errors.extend(_unknown_points(course, kept, scenarios, root))
    return Catalog(tuple(scenarios), kept, tuple(errors), course)


def _unknown_points(course: Course, exercises, scenarios, root: Path) -> list[SchemaError]:
    """Report each [points] or [deadlines] key that names no exercise and no whole pass."""
    items = {e.id for e in exercises} | {f"whole_pass:{s.slug}" for s in scenarios if s.whole_pass}
    where = str(root / "course.toml")
    keyed = [("points", i) for i, _ in course.points]
    keyed += [("deadlines", i) for i, _ in course.deadlines]
    return [
        SchemaError(f"{where}: {table}.{item}", "is not an exercise id or whole_pass:<slug>")
        for table, item in keyed
        if item not in items
    ]


def _is_scenario_folder(path: Path) -> bool:
    """Return whether path is a scenario's folder (not hidden, a template or the answers)."""
    return path.is_dir() and path.name[0] not in "._" and path.name != SOLUTIONS


def _course(root: Path, errors: list[SchemaError]) -> Course:
    """Return the folder's course; each bad key of course.toml is reported and left out."""
    try:
        course, problems = read_course(root)
    except OSError as err:
        errors.append(_as_schema_error(root / "course.toml", err))
        return Course(id=root.resolve().name)
    errors.extend(problems)
    return course


# Ids are also the app's page addresses: these belong to its own pages.
RESERVED_IDS = ("home", "progress", "training", "problems", "whole_pass")


def _reserved_ids(exercises: list[Exercise]) -> list[SchemaError]:
    """Report exercise ids that would take the address of one of the app's own pages."""
    return [
        SchemaError(str(e.path), f"id `{e.id}` is the address of one of the app's own pages")
        for e in exercises
        if e.id.lower() in RESERVED_IDS or e.id.lower().startswith("whole_pass")
    ]


def _as_schema_error(path: Path, err: Exception) -> SchemaError:
    """Return err as a SchemaError that names the file."""
    return err if isinstance(err, SchemaError) else SchemaError(str(path), str(err))


def _duplicate_ids(exercises: list[Exercise]) -> list[SchemaError]:
    """Report exercise ids used by more than one file, in any scenario (the first one stays)."""
    seen: dict[str, Path] = {}
    errors = []
    for exercise in exercises:
        if exercise.id in seen:
            problem = (
                f"id `{exercise.id}` is also used by {seen[exercise.id]}, which keeps it; "
                "this file is left out until it has an id of its own"
            )
            errors.append(SchemaError(str(exercise.path), problem))
        seen.setdefault(exercise.id, exercise.path)
    return errors


def load_exercise(path: Path, scenario: Scenario) -> Exercise:
    """Read and check one exercise file; raise SchemaError naming the file and field."""
    where = str(path)
    match = FILE_NAME.match(path.name)
    require(match is not None, where, "file name must look like `NN_id.toml`")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise SchemaError(where, f"is not valid TOML: {err}") from err
    check_keys(raw, EXERCISE_KEYS, REQUIRED, where)
    target = raw["target"]
    require(target in scenario.names(), f"{where}: target", f"`{target}` is not in the scenario")
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
        mistakes=tuple(_mistakes(raw.get("mistakes", []), where)),
        tolerance=_tolerance(raw, where),
        explain=raw.get("explain", "").strip(),
        derivation=tuple(raw.get("derivation", ())),
        lecture=parse_lecture(raw["lecture"], where) if "lecture" in raw else scenario.lecture,
        answers=answers,
        dtype=raw.get("dtype", ""),
        named_parts=_parts(raw.get("parts", {}), scenario, where),
        version=content_version(path, scenario.path),
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


def _mistakes(raw: list, where: str) -> list[Mistake]:
    """Read the `[[mistakes]]` tables."""
    mistakes = []
    for i, item in enumerate(raw, start=1):
        at = f"{where}: [[mistakes]] {i}"  # counted from 1, as an author counts the blocks
        check_keys(item, MISTAKE_KEYS, ("code", "message"), at)
        named = item.get("misconception", LISTED_MISTAKE)
        require(named in IDS, f"{at}: misconception", f"must be one of {', '.join(IDS)}")
        mistakes.append(Mistake(item["code"].strip() + "\n", item["message"].strip(), named))
    return mistakes


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
        require(name in names, f"{where}: given", f"`{name}` is not in the scenario")
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
            f"`{name}` is not in the scenario",
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
