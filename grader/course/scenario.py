"""Scenarios: a setup and a forward program over named tensors, run with autograd.

A scenario file (`exercises/NN_slug/scenario.toml`) holds a setup program that draws the
parameters and the batch from one seeded generator, and a forward program. Both are lowered
(grader/course/program.py) to statements that assign one named tensor once. Because each statement
names what it reads, the grader knows each tensor's consumers and can rebuild any
vector-Jacobian product with autograd.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from grader.course.differentiable import mark_differentiable
from grader.course.lecture import LectureLink, parse_lecture
from grader.course.program import Statement, lower
from grader.course.schema import SchemaError, check_keys, require

SCENARIO_KEYS = {
    "title": str,
    "description": str,
    "uses_dataset": bool,
    "seed": int,
    "output": str,
    "output_grad": str,
    "params": list,
    "whole_pass": list,
    "sizes": dict,
    "alt_sizes": dict,
    "setup": dict,
    "forward": dict,
    "lecture": str,  # where the lecture video teaches it: every exercise's default link
}
REQUIRED = ("title", "output", "params", "sizes", "alt_sizes", "setup", "forward")


@dataclass(frozen=True)
class Scenario:
    """A forward program and everything needed to run it."""

    slug: str
    path: Path
    title: str
    description: str
    uses_dataset: bool
    seed: int
    output: str
    output_grad: str  # a setup tensor: the cotangent of a non-scalar output ("" for ones)
    params: tuple[str, ...]
    whole_pass: tuple[str, ...]
    sizes: dict
    alt_sizes: dict
    setup: tuple[Statement, ...]
    forward: tuple[Statement, ...]
    lecture: LectureLink | None = None  # set for the lecture's own scenario

    def statement(self, name: str) -> Statement:
        """Return the forward statement that assigns `name`."""
        for stmt in self.forward + self.setup:
            if stmt.target == name:
                return stmt
        raise KeyError(name)

    def consumers(self, name: str) -> tuple[str, ...]:
        """Return the forward tensors that carry a gradient and are computed directly from
        `name`, in program order (a mask made from `name` is not a consumer)."""
        return tuple(s.target for s in self.forward if name in s.reads and s.differentiable)

    def differentiable(self, name: str) -> bool:
        """Return whether `name` has a gradient: a parameter, or a forward tensor carrying one."""
        forward = {s.target: s.differentiable for s in self.forward}
        return name in self.params or forward.get(name, False)

    def names(self) -> tuple[str, ...]:
        """Return every tensor the setup and forward programs assign, in order."""
        return tuple(s.target for s in self.setup + self.forward)


def parse_program(source: str, where: str) -> tuple[Statement, ...]:
    """Parse one program on its own into single-assignment statements (see program.py)."""
    return lower([(source, where)])[0]


def load_scenario(path: Path) -> Scenario:
    """Read and check a scenario file; raise SchemaError naming the file and field."""
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
        raw = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise SchemaError(where, f"is not valid TOML: {err}") from err
    check_keys(raw, SCENARIO_KEYS, REQUIRED, where)
    setup, forward = lower(
        [
            (_code(raw, "setup", where), f"{where}: setup.code"),
            (_code(raw, "forward", where), f"{where}: forward.code"),
        ]
    )
    offsets = code_offsets(text)
    setup, forward = _in_file(setup, offsets["setup"]), _in_file(forward, offsets["forward"])
    params = tuple(raw["params"])
    setup = tuple(replace(s, differentiable=s.target in params) for s in setup)
    forward = mark_differentiable(forward, params)
    scenario = Scenario(
        slug=path.parent.name,
        path=path,
        title=raw["title"],
        description=raw.get("description", "").strip(),
        uses_dataset=raw.get("uses_dataset", False),
        seed=raw.get("seed", 2147483647),
        output=raw["output"],
        output_grad=raw.get("output_grad", ""),
        params=params,
        whole_pass=tuple(raw.get("whole_pass", ())),
        sizes=dict(raw["sizes"]),
        alt_sizes=dict(raw["alt_sizes"]),
        setup=setup,
        forward=forward,
        lecture=parse_lecture(raw["lecture"], where) if "lecture" in raw else None,
    )
    _check_names(scenario, where)
    return scenario


CODE_START = re.compile(r"^\s*code\s*=\s*('{3}|\"{3})(.*)$")


def code_offsets(text: str) -> dict[str, int]:
    """Return, for the `setup` and `forward` tables, the file line just before their code's
    first line (program line k is file line offset + k); 0 where the code is not found."""
    offsets, table = {"setup": 0, "forward": 0}, ""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip().startswith("["):
            table = line.strip().strip("[]").strip()
        elif table in offsets and not offsets[table] and (match := CODE_START.match(line)):
            empty = not match.group(2).strip()  # TOML drops a newline right after the quotes
            offsets[table] = number if empty else number - 1
    return offsets


def _in_file(program: tuple[Statement, ...], offset: int) -> tuple[Statement, ...]:
    """Return the program's statements with their file lines (left unknown at offset 0)."""
    return tuple(replace(s, file_line=offset + s.line) if offset else s for s in program)


def _code(raw: dict, table: str, where: str) -> str:
    """Return the `code` string of a program table."""
    check_keys(raw[table], {"code": str}, ("code",), f"{where}: {table}")
    return raw[table]["code"]


def _check_names(scenario: Scenario, where: str) -> None:
    """Check that every name the scenario lists is assigned exactly once."""
    names = scenario.names()
    for name in set(names):
        require(names.count(name) == 1, where, f"`{name}` is assigned more than once")
    for field in ("params", "whole_pass"):
        for name in getattr(scenario, field):
            require(name in names, f"{where}: {field}", f"`{name}` is never assigned")
    require(scenario.output in names, f"{where}: output", f"`{scenario.output}` is never assigned")
    setup = {s.target for s in scenario.setup}
    for name in scenario.params:
        require(
            name in setup,
            f"{where}: params",
            f"`{name}` is written again in forward; give the new value its own name",
        )
    for name in scenario.whole_pass:
        require(
            scenario.differentiable(name),
            f"{where}: whole_pass",
            f"`{name}` carries no gradient (a mask, indices or a comparison)",
        )
    if scenario.output_grad:
        require(
            scenario.output_grad in setup,
            f"{where}: output_grad",
            f"`{scenario.output_grad}` is not drawn in setup",
        )
