"""Scenarios: forward programs of single-assignment statements, run with autograd.

A scenario file (`exercises/NN_slug/scenario.toml`) holds a setup program that draws the
parameters and the batch from one seeded generator, and a forward program whose every line
assigns one named tensor. Because each statement names what it reads, the grader knows each
tensor's consumers and can rebuild any vector-Jacobian product with autograd.
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.lecture import LectureLink, parse_lecture
from grader.schema import SchemaError, check_keys, require

SCENARIO_KEYS = {
    "title": str,
    "description": str,
    "uses_dataset": bool,
    "seed": int,
    "output": str,
    "params": list,
    "whole_pass": list,
    "sizes": dict,
    "alt_sizes": dict,
    "setup": dict,
    "forward": dict,
    "lecture": str,  # where the lecture video teaches it: every exercise's default link
}
REQUIRED = ("title", "output", "params", "sizes", "alt_sizes", "setup", "forward")
# `# (shape)`, optionally followed by the reason for the line: `# (1, n_hidden) Bessel: ...`
SHAPE_COMMENT = re.compile(r"#\s*(\([^()]*\))(?:\s+(\S.*?))?\s*$")


@dataclass(frozen=True)
class Statement:
    """One line of a program: `target = expr  # (shape) why`."""

    target: str
    reads: tuple[str, ...]
    source: str
    shape: str
    line: int
    note: str = ""  # the lecture's reason for writing the line this way, if any


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
        """Return the forward tensors computed directly from `name`, in program order."""
        return tuple(s.target for s in self.forward if name in s.reads)

    def names(self) -> tuple[str, ...]:
        """Return every tensor the setup and forward programs assign, in order."""
        return tuple(s.target for s in self.setup + self.forward)


def parse_program(source: str, where: str) -> tuple[Statement, ...]:
    """Parse a program of single-assignment statements, one per line."""
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        raise SchemaError(where, f"syntax error on line {err.lineno}: {err.msg}") from err
    lines = source.splitlines()
    return tuple(_statement(node, lines, where) for node in tree.body)


def _statement(node: ast.stmt, lines: list[str], where: str) -> Statement:
    """Turn one assignment node into a Statement, or reject it."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        raise SchemaError(where, f"line {node.lineno} is not a single assignment `name = ...`")
    target = node.targets[0]
    if not isinstance(target, ast.Name):
        raise SchemaError(where, f"line {node.lineno} must assign one plain name")
    reads = tuple(dict.fromkeys(n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)))
    text = lines[node.lineno - 1]
    match = SHAPE_COMMENT.search(text)
    source = ast.get_source_segment("\n".join(lines), node) or text
    shape = match.group(1) if match else ""
    note = (match.group(2) or "") if match else ""
    return Statement(target.id, reads, source, shape, node.lineno, note)


def load_scenario(path: Path) -> Scenario:
    """Read and check a scenario file; raise SchemaError naming the file and field."""
    where = str(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise SchemaError(where, f"is not valid TOML: {err}") from err
    check_keys(raw, SCENARIO_KEYS, REQUIRED, where)
    setup = parse_program(_code(raw, "setup", where), f"{where}: setup.code")
    forward = parse_program(_code(raw, "forward", where), f"{where}: forward.code")
    scenario = Scenario(
        slug=path.parent.name,
        path=path,
        title=raw["title"],
        description=raw.get("description", "").strip(),
        uses_dataset=raw.get("uses_dataset", False),
        seed=raw.get("seed", 2147483647),
        output=raw["output"],
        params=tuple(raw["params"]),
        whole_pass=tuple(raw.get("whole_pass", ())),
        sizes=dict(raw["sizes"]),
        alt_sizes=dict(raw["alt_sizes"]),
        setup=setup,
        forward=forward,
        lecture=parse_lecture(raw["lecture"], where) if "lecture" in raw else None,
    )
    _check_names(scenario, where)
    return scenario


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
