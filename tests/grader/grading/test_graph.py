"""The forward pass as a graph, generated from any scenario."""

from __future__ import annotations

import pytest

from grader import Grader
from grader.grading.graph import INPUT, OUTPUT, PARAM


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog)


def test_the_lecture_graph_has_every_tensor_and_use(grader, mlp):
    graph = grader.graph("01_mlp")
    kinds = {n.name: n.kind for n in graph.nodes}
    assert {k for k, v in kinds.items() if v == PARAM} == set(mlp.params)
    assert kinds["Xb"] == kinds["Yb"] == INPUT and kinds["loss"] == OUTPUT
    assert len(graph.nodes) == len(mlp.params) + 2 + len(mlp.forward)
    assert graph.consumers("logits") == ("logit_maxes", "norm_logits")
    assert graph.consumers("counts") == ("counts_sum", "probs")
    shapes = {n.name: (n.shape, n.symbolic) for n in graph.nodes}
    assert shapes["counts_sum"] == ((32, 1), "(n, 1)")
    assert shapes["bngain"] == ((1, 64), "(1, n_hidden)")


def test_every_shipped_scenario_has_a_graph_matching_its_consumers(grader, catalog):
    for scenario in catalog.scenarios:
        graph = grader.graph(scenario.slug)
        names = [n.name for n in graph.nodes]
        assert len(names) == len(set(names)), scenario.slug
        for stmt in scenario.forward:
            assert stmt.target in names, (scenario.slug, stmt.target)
            assert graph.consumers(stmt.target) == scenario.consumers(stmt.target)
