"""The graph view: colours follow progress, the current exercise and its consumers stand out,
nodes with an exercise link to it."""

from __future__ import annotations

import re

from app import services
from app.storage import Attempt
from app.views import graphview
from grader import Grader
from grader.course.exercises import discover

from ..app_helpers import page_test


def _dot(statuses, focus=None):
    import data

    catalog = discover()
    graph = Grader(data.default_dataset(), catalog).graph("01_mlp")
    return graphview.dot_source(
        graph, graphview.exercise_for_each_tensor(catalog, "01_mlp"), statuses, focus
    )


def _node(dot: str, name: str) -> str:
    return re.search(rf'^  "{name}" \[(.*)\];$', dot, re.M).group(1)


def test_colours_follow_the_learners_progress():
    dot = _dot({"dlogprobs": "solved", "dprobs": "attempted"})
    assert 'fillcolor="#c8e6c9"' in _node(dot, "logprobs")
    assert 'fillcolor="#ffe0b2"' in _node(dot, "probs")
    assert 'fillcolor="#ffffff"' in _node(dot, "counts")
    assert 'fillcolor="#eeeeee"' in _node(dot, "Xb"), "no exercise asks for dXb"


def test_the_current_exercise_and_its_consumers_are_outlined():
    dot = _dot({}, focus=("counts", ("counts_sum", "probs")))
    assert "penwidth=3" in _node(dot, "counts")
    assert "penwidth=2" in _node(dot, "counts_sum") and "penwidth=2" in _node(dot, "probs")
    assert "penwidth" not in _node(dot, "logits")
    assert re.search(r'"counts" -> "probs" \[.*color="#1565c0"', dot)


def test_nodes_link_to_their_first_exercise_and_carry_their_shapes():
    dot = _dot({})
    assert 'URL="dlogits"' in _node(dot, "logits"), "the step exercise, not the fused one"
    assert "URL" not in _node(dot, "Yb")
    assert '<counts_sum<BR/><FONT POINT-SIZE="8"' in _node(dot, "counts_sum")
    assert ">(n, 1)</FONT>>" in _node(dot, "counts_sum")
    # no label on the edges: a tensor's several uses repeated its shape, and the labels overlapped
    assert re.search(r'^  "counts_sum" -> "counts_sum_inv" \[\];$', dot, re.M)
    assert "label" not in "".join(ln for ln in dot.splitlines() if " -> " in ln)


def test_home_and_the_exercise_page_draw_the_graph(app_env):
    store = services.store()
    home = page_test(page="home").run()
    assert not home.exception
    charts = home.get("graphviz_chart")
    assert len(charts) == 4, "one per shipped scenario"
    profile = store.learners.profiles()[0]
    store.work.record_attempt(
        profile, Attempt("dlogprobs", "x", True, "solved", 0.0, 1.0, "default")
    )
    page = page_test("dcounts").run()
    (chart,) = page.get("graphviz_chart")
    assert "penwidth=3" in _node(chart.proto.spec, "counts")
    assert 'fillcolor="#c8e6c9"' in _node(chart.proto.spec, "logprobs"), "solved is green"


def test_the_graph_kept_per_grader_is_drawn_in_each_learners_colours(monkeypatch):
    import data

    catalog = discover()
    grader = Grader(data.default_dataset(), catalog)
    built, drawn = [], []
    real = grader.graph
    monkeypatch.setattr(grader, "graph", lambda slug: built.append(slug) or real(slug))
    monkeypatch.setattr(graphview.st, "graphviz_chart", drawn.append)
    monkeypatch.setattr(graphview.st, "caption", lambda text: None)
    for statuses in ({}, {"dprobs": "solved"}, {}, {"dprobs": "attempted"}):
        graphview.show(grader, catalog, "01_mlp", statuses)
    assert built == ["01_mlp"], "one graph per grader and scenario"
    fills = [re.search(r'fillcolor="(#\w+)"', _node(dot, "probs")).group(1) for dot in drawn]
    assert fills == ["#ffffff", "#c8e6c9", "#ffffff", "#ffe0b2"]
