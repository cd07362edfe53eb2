"""The computational graph of a scenario, drawn with Graphviz: where each gradient comes from.

Nodes are coloured by the learner's status on the exercise that asks for their gradient; on an
exercise page the node being differentiated and the consumers its gradient comes back from are
outlined. A node with an exercise links to it.
"""

from __future__ import annotations

import weakref
from html import escape
from typing import TYPE_CHECKING

import streamlit as st

from app.storage import ATTEMPTED, SOLVED

if TYPE_CHECKING:
    from grader import Catalog, Grader

FILL = {SOLVED: "#c8e6c9", ATTEMPTED: "#ffe0b2", None: "#ffffff"}
NO_EXERCISE_FILL = "#eeeeee"
FOCUS, CONSUMER = "#1565c0", "#42a5f5"
SHAPE_COLOUR = "#424242"  # 10:1 on white, 7.8:1 on the solved green
LEGEND = (
    "Green: solved · orange: attempted · white: not yet · grey: no exercise. "
    "Click a node to open its exercise."
)


def dot_source(
    graph,
    exercises: dict[str, str],
    statuses: dict[str, str],
    focus: tuple[str, tuple[str, ...]] | None = None,
) -> str:
    """Return the DOT text of a graph.

    `exercises` maps a tensor to the exercise asking for its gradient; `focus` is (target,
    consumers) of the current exercise, whose node and incoming gradient paths are outlined.
    """
    target, consumers = focus or (None, ())
    lines = [
        "digraph forward {",
        '  rankdir=TB; bgcolor="transparent"; nodesep=0.25; ranksep=0.22;',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10,'
        ' height=0.3, margin="0.14,0.04", color="#9e9e9e"];',
        '  edge [color="#9e9e9e", arrowsize=0.6];',
    ]
    for node in graph.nodes:
        exercise = exercises.get(node.name)
        fill = FILL.get(statuses.get(exercise)) if exercise else NO_EXERCISE_FILL
        attrs = [f"label={_label(node)}", f'fillcolor="{fill}"', f'tooltip="{node.symbolic}"']
        if exercise:
            attrs += [f'URL="{exercise}"', 'target="_self"']
        if node.name == target:
            attrs += [f'color="{FOCUS}"', "penwidth=3"]
        elif node.name in consumers:
            attrs += [f'color="{CONSUMER}"', "penwidth=2"]
        if node.kind == "output":
            attrs.append("shape=doubleoctagon")
        lines.append(f'  "{node.name}" [{", ".join(attrs)}];')
    for edge in graph.edges:
        attrs = []
        if edge.source == target and edge.target in consumers:
            attrs += [f'color="{FOCUS}"', "penwidth=2"]
        lines.append(f'  "{edge.source}" -> "{edge.target}" [{", ".join(attrs)}];')
    lines.append("}")
    return "\n".join(lines)


def _label(node) -> str:
    """Return a node's label: its name over its shape, smaller. The shape sits in the node, not
    on each edge out of it, where the labels of a tensor's several uses overlapped."""
    shape = f'<BR/><FONT POINT-SIZE="8" COLOR="{SHAPE_COLOUR}">{escape(node.symbolic)}</FONT>'
    return f"<{escape(node.name)}{shape if node.symbolic else ''}>"


def exercise_for_each_tensor(catalog: Catalog, slug: str) -> dict[str, str]:
    """Return, per tensor of a scenario, the first exercise (in teaching order) asking for it."""
    found: dict[str, str] = {}
    for exercise in catalog.exercises:
        if exercise.scenario.slug == slug:
            found.setdefault(exercise.target, exercise.id)
    return found


def show(
    grader: Grader,
    catalog: Catalog,
    slug: str,
    statuses: dict[str, str],
    focus: tuple[str, tuple[str, ...]] | None = None,
) -> None:
    """Draw one scenario's graph with the legend."""
    exercises = exercise_for_each_tensor(catalog, slug)
    shown = tuple(sorted((e, statuses[e]) for e in set(exercises.values()) if e in statuses))
    graph, texts = _graph(grader, slug)
    key = (tuple(exercises.items()), shown, focus)
    if key not in texts:
        texts[key] = dot_source(graph, exercises, dict(shown), focus)
    st.graphviz_chart(texts[key])
    st.caption(LEGEND)


_GRAPHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
KEPT_TEXTS = 512  # DOT texts kept per scenario: focus and statuses vary per page and learner


def _graph(grader: Grader, slug: str) -> tuple[object, dict]:
    """Return a scenario's graph and the DOT texts drawn of it so far, kept per grader (a
    dataset and a version of the files; none depends on a learner): a page drew the graph on
    every run of its editor's fragment."""
    graphs = _GRAPHS.setdefault(grader, {})
    if slug not in graphs:
        graphs[slug] = (grader.graph(slug), {})
    graph, texts = graphs[slug]
    if len(texts) > KEPT_TEXTS:
        texts.clear()
    return graph, texts
