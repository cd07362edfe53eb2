"""The app's views: how a page shows what the grader returned (no state, no maths).

    >>> from app.views import results
    >>> results.show_result(result)

results.py shows a check's result and the lecture's cmp table; training_view.py Exercise 4's
runs; notebook_view.py a graded notebook; graphview.py a scenario's graph; plots.py the figures;
dashboard.py the instructor dashboard's words, medians, charts and its refresh.
"""

from app.views import dashboard, graphview, notebook_view, plots, results, training_view

__all__ = ["dashboard", "graphview", "notebook_view", "plots", "results", "training_view"]
