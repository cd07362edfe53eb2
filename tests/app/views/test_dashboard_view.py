"""The dashboard's words, medians and charts (app/views/dashboard.py)."""

from __future__ import annotations

from app.views import dashboard
from grader import discover


def test_a_median_that_does_not_exist_is_a_dash_not_none():
    assert dashboard.median(None) == dashboard.NO_MEDIAN != "None"
    assert dashboard.median(2.0) == "2" and dashboard.median(150.0, 60) == "2.5"


def test_a_misconception_is_said_in_words_or_by_its_id_when_the_course_forgot_it():
    catalog = discover()
    own = "multiplies_by_probs_where_the_log_s_derivative_divides"
    assert dashboard.said(catalog, "dprobs", own) == (
        "multiplies by probs where the log's derivative divides"
    )
    assert dashboard.said(catalog, "whole_pass:01_mlp", "sign_flipped") == "has the opposite sign"
    assert dashboard.said(catalog, "dprobs", "listed_0123abcd") == "listed_0123abcd"


def test_the_bars_labels_are_never_cut_and_counts_are_whole():
    spec = dashboard.bar_spec("misconception", {"attempts": "#f4900c"})
    assert spec["encoding"]["y"]["axis"]["labelLimit"] == 0, "Vega's default cuts at 180 px"
    assert spec["encoding"]["x"]["axis"]["format"] == "d"
