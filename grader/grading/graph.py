"""A scenario's forward pass as a graph: one node per tensor, one edge per use, with shapes.

Plain data for the app to draw (app/views/graphview.py): generated from the scenario's statements,
so an instructor's scenario gets its graph too.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.course import Scenario
from grader.grading.cases import LECTURE, Runs

PARAM, INPUT, VALUE, OUTPUT = "param", "input", "value", "output"


@dataclass(frozen=True)
class Node:
    """One tensor of the forward pass."""

    name: str
    kind: str  # PARAM, INPUT (data drawn in setup), VALUE (a forward line) or OUTPUT
    shape: tuple[int, ...]
    symbolic: str  # the shape comment, e.g. "(n, vocab_size)"


@dataclass(frozen=True)
class Edge:
    """`source` is read by the line that computes `target`."""

    source: str
    target: str


@dataclass(frozen=True)
class Graph:
    """The forward pass: nodes in program order (setup first), edges in program order."""

    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]

    def consumers(self, name: str) -> tuple[str, ...]:
        """Return the tensors computed directly from `name`."""
        return tuple(e.target for e in self.edges if e.source == name)


def scenario_graph(scenario: Scenario, runs: Runs) -> Graph:
    """Return the graph of a scenario's forward pass with the lecture configuration's shapes."""
    run = runs.get(scenario, LECTURE)
    computed = {s.target for s in scenario.forward}
    read = {r for s in scenario.forward for r in s.reads}
    nodes, edges = [], []
    for stmt in scenario.setup:
        if stmt.target in read and stmt.target not in computed:
            kind = PARAM if stmt.target in scenario.params else INPUT
            nodes.append(_node(stmt.target, kind, stmt.shape, run))
    for stmt in scenario.forward:
        kind = OUTPUT if stmt.target == scenario.output else VALUE
        nodes.append(_node(stmt.target, kind, stmt.shape, run))
        known = {n.name for n in nodes}
        edges += [Edge(r, stmt.target) for r in stmt.reads if r in known and r != stmt.target]
    return Graph(tuple(nodes), tuple(dict.fromkeys(edges)))


def _node(name: str, kind: str, symbolic: str, run) -> Node:
    """Describe one tensor with its lecture shape."""
    value = run.values.get(name)
    shape = tuple(value.shape) if hasattr(value, "shape") else ()
    return Node(name, kind, shape, symbolic or str(shape))
