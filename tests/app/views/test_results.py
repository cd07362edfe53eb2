"""The results view: a wrong answer's heatmaps drawn at once, or later in their kept place."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _page(later: bool, call: bool) -> None:
    """Show a wrong answer's result, then a caption, then call (if asked) what it returned."""
    import streamlit as st

    from app.views import results
    from grader import Check, Cmp, Heatmap, Result

    heat = Heatmap([[1.0, 2.0]], [[1.0, 3.0]], [[0.0, -1.0]], (0,), (0, 1))
    check = Check("lecture", "fail", "`dprobs` is inaccurate.")
    result = Result("dprobs", "dprobs", False, (check,), cmp=Cmp("dprobs", False, False, 1.0))
    result = Result(**{**result.__dict__, "heatmap": heat})
    draw = results.show_result(result, later=later)
    st.caption("drawn after the result")
    if call:
        draw()


def _elements(later: bool, call: bool = True) -> list[str]:
    """Return the kinds of the page's elements in the order of the page."""
    at = AppTest.from_function(_page, args=(later, call), default_timeout=60).run()
    assert not at.exception
    return [node.type for node in at.main.children.values() for node in _leaves(node)]


def _leaves(node):
    """Yield the elements under a node, in order."""
    children = getattr(node, "children", None)
    if children is None:
        yield node
        return
    for child in children.values():
        yield from _leaves(child)


def test_the_heatmaps_are_drawn_at_once_unless_asked_for_later():
    now = _elements(later=False)
    assert now.count("vega_lite_chart") == 1
    assert _elements(later=False, call=False) == now, "what it returns draws nothing more"
    assert "vega_lite_chart" not in _elements(later=True, call=False), "not before the call"
    later = _elements(later=True)
    assert later.count("vega_lite_chart") == 1, "drawn when the function is called"
    assert now == later, "in the same place either way: below the words that announce them"
