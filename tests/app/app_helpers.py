"""Helpers for the app tests: a fake grader, AppTest builders, and page-text readers."""

from __future__ import annotations

import functools
from pathlib import Path

from streamlit.testing.v1 import AppTest

from app import services
from app.panels.editor import SUBMIT_LABEL
from grader import (
    Check,
    Cmp,
    ExerciseView,
    GradRow,
    Heatmap,
    LearnerError,
    PassResult,
    Result,
    TensorInfo,
    discover,
)
from grader.grading.pipeline import EXERCISE, steps

ROOT = Path(__file__).resolve().parents[2]
MAIN = ROOT / "app" / "main.py"
TIMEOUT = 60
BROWSER = "a1b2c3d4"  # the identity of the browser that every AppTest stands for
ORDER = tuple(s.kind for s in steps(EXERCISE))  # the ticks of one exercise, in order
HEADER = {
    "name": "default",
    "words": 30460,
    "vocab_size": 27,
    "block_size": 3,
    "train": 175591,
    "dev": 22023,
    "test": 22002,
    "scenario": "makemore MLP with batchnorm",
    "parameters": 4137,
    "loss": 3.3967,
    "sizes": {"n": 32},
}

SOLVED, SHAPE, RAISES, VALUES, RANDOM_ONLY = (
    "# fake: solved",
    "# fake: shape",
    "# fake: raises",
    "# fake: values",
    "# fake: random only",
)


@functools.cache
def shipped_catalog():
    """Return the shipped exercises, read once per run (a Catalog is frozen: fakes share it)."""
    return discover()


class FakeGrader:
    """Stands in for grader.Grader: canned results, chosen by a marker in the code."""

    def __init__(self):
        self.catalog = shipped_catalog()
        self.graded: list[tuple[str, str]] = []

    def header(self, scenario=None) -> dict:
        return dict(HEADER)

    def graph(self, scenario=None):
        from grader.grading.graph import Edge, Graph, Node

        nodes = (Node("probs", "value", (32, 27), "(n, vocab_size)"),)
        nodes += (Node("logprobs", "value", (32, 27), "(n, vocab_size)"),)
        return Graph(nodes, (Edge("probs", "logprobs"),))

    def describe(self, exercise_id: str) -> ExerciseView:
        e = self.catalog.get(exercise_id)
        tensors = (
            TensorInfo("probs", (32, 27), "(n, vocab_size)", "forward"),
            TensorInfo(f"d{e.given[0]}", (32, 27), "(n, vocab_size)", "given"),
            TensorInfo(e.answer, (32, 27), "(n, vocab_size)", "answer"),
        )
        return ExerciseView(
            e.id,
            e.title,
            e.group,
            e.scenario.title,
            e.prompt,
            e.starter,
            e.hints,
            e.answer,
            ("logprobs = probs.log()  # (n, vocab_size)",),
            tensors,
            e.explain,
            e.derivation,
            e.lecture.url if e.lecture else "",
            e.lecture.label if e.lecture else "",
        )

    def grade(self, exercise_id: str, code: str) -> Result:
        self.graded.append((exercise_id, code))
        name = self.catalog.get(exercise_id).answer
        marker = next((m for m in CANNED if m in code), VALUES)
        statuses, message, extra = CANNED[marker](name)
        return _result(exercise_id, name, statuses, message, **extra)

    def grade_pass(self, code: str, scenario=None) -> PassResult:
        self.graded.append(("whole_pass", code))
        rows = (
            GradRow(
                "dlogprobs",
                "pass",
                "`dlogprobs` looks good (max diff 0.0e+00).",
                Cmp("dlogprobs", True, True, 0.0),
            ),
            GradRow(
                "dprobs",
                "fail",
                "`dprobs` is inaccurate: max abs diff 2.0e-01 at (0, 0).",
                Cmp("dprobs", False, False, 0.2),
            ),
            GradRow("dcounts", "fail", "`dcounts` is not defined: assign your answer."),
        )
        if SOLVED in code:
            lines = _lines(code, "dlogprobs")
            message = "All 26 gradients are right."
            return PassResult(True, dict(HEADER), rows[:1], None, message, lines=lines)
        return PassResult(
            False,
            dict(HEADER),
            rows,
            "dprobs",
            "`dprobs` is the first wrong gradient in backward order; fix it first.",
            misconception="local_only",
            lines=_lines(code, "dprobs"),
            root_exercise="dprobs",
            diagnosis=ROOT_DIAGNOSIS,
        )


def _lines(code: str, name: str) -> tuple:
    """Return the pass's (gradient, lines) for one name: the lines that start with it."""
    found = "\n".join(ln for ln in code.splitlines() if ln.startswith(name))
    return ((name, found),) if found else ()


ROOT_DIAGNOSIS = "`dprobs` is the local derivative only. Hint: multiply by `dlogprobs`."


def _solved(name: str) -> tuple:
    return {k: "pass" for k in ORDER}, f"`{name}` looks good.", {"cmp": Cmp(name, True, True, 0.0)}


def _shape(name: str) -> tuple:
    hint = "Hint: the values are right but a dimension was dropped; sum with keepdim=True."
    return (
        {"runs": "pass", "rules": "pass", "form": "fail"},
        f"`{name}` has the wrong shape: got (32,), expected (32, 1).",
        {"hint": hint},
    )


def _raises(name: str) -> tuple:
    error = LearnerError(
        "ZeroDivisionError",
        "division by zero",
        2,
        'File "<your code>", line 2\nZeroDivisionError: division by zero',
    )
    return {"runs": "fail"}, "Your code raised ZeroDivisionError on line 2:", {"error": error}


def _values(name: str) -> tuple:
    heat = Heatmap([[1.0, 2.0]], [[1.0, 3.0]], [[0.0, -1.0]], (0,), (0, 1))
    return (
        {"runs": "pass", "rules": "pass", "form": "pass", "lecture": "fail"},
        f"`{name}` is inaccurate: max abs diff 1.0e+00 at (0, 1); tolerance 1e-08.",
        {"cmp": Cmp(name, False, False, 1.0), "heatmap": heat},
    )


def _random_only(name: str) -> tuple:
    heat = Heatmap([[0.0, 0.0]], [[0.5, -0.5]], [[-0.5, 0.5]], (0,), (0, 1), "random")
    return (
        {"runs": "pass", "rules": "pass", "form": "pass", "lecture": "pass", "random": "fail"},
        f"`{name}` is inaccurate: max abs diff 5.0e-01 at (0, 0); tolerance 1e-08.",
        {"cmp": Cmp(name, False, True, 1e-9), "heatmap": heat},
    )


CANNED = {
    SOLVED: _solved,
    SHAPE: _shape,
    RAISES: _raises,
    VALUES: _values,
    RANDOM_ONLY: _random_only,
}


def _result(exercise_id, name, statuses, message, hint="", **extra) -> Result:
    """Build a Result whose first failing check (or last check) carries message."""
    checks = []
    for kind in ORDER:
        status = statuses.get(kind, "skipped")
        text = message if status == "fail" or (kind == "sizes" and status == "pass") else "ok"
        checks.append(Check(kind, status, text, hint if status == "fail" else ""))
    solved = all(c.status == "pass" for c in checks)
    return Result(exercise_id, name, solved, tuple(checks), elapsed=0.012, **extra)


def page_test(exercise_id: str | None = None, page: str = "exercise") -> AppTest:
    """Return an AppTest that renders one screen directly (no navigation, no sidebar)."""

    def script(page: str, exercise_id: str | None) -> None:
        import importlib

        module = importlib.import_module(f"app.screens.{page}")
        module.render(*([exercise_id] if exercise_id else []))

    return AppTest.from_function(script, args=(page, exercise_id), default_timeout=TIMEOUT)


def main_test() -> AppTest:
    """Return an AppTest of the whole app, from app/main.py."""
    return AppTest.from_file(str(MAIN), default_timeout=TIMEOUT)


def submit(at: AppTest, code: str) -> AppTest:
    """Type code into the plain editor and press its Submit button."""
    at.text_area[0].input(code)
    next(b for b in at.button if b.label == SUBMIT_LABEL).click()
    return at.run()


def texts(at: AppTest) -> str:
    """Return every piece of text on the page, joined, for `in` checks."""
    parts = [
        e.value
        for kind in (
            "markdown",
            "caption",
            "title",
            "header",
            "subheader",
            "code",
            "error",
            "success",
            "info",
            "warning",
        )
        for e in getattr(at, kind)
    ]
    return "\n".join(str(p) for p in parts)


def every_page_renders() -> None:
    """Render Home through app/main.py, then every page directly (training too, offered or not)."""
    at = main_test().run()
    assert not at.exception, at.exception
    catalog = services.catalog()
    pages = [("problems", None), ("progress", None), ("training", None)]
    pages += [("exercise", e.id) for e in catalog.exercises]
    pages += [("whole_pass", s.slug) for s in catalog.scenarios if s.whole_pass]
    for page, arg in pages:
        shown = page_test(arg, page=page).run()
        assert not shown.exception, (page, arg, shown.exception)


def nav_sections() -> dict:
    """Return the navigation a new session builds (st.Page objects by section)."""

    def script():
        import streamlit as st

        from app import nav

        st.session_state["sections"] = nav.sections()

    return AppTest.from_function(script, default_timeout=TIMEOUT).run().session_state["sections"]


def counting_navigations(page: str, target: str) -> AppTest:
    """Return an AppTest of a screen (`exercise` or `whole_pass`) on target that counts in the
    session how often the page asks for the navigation to be sent again."""

    def script(page: str, target: str) -> None:
        import importlib

        import streamlit as st

        st.session_state.setdefault("navigations", 0)

        def renavigate() -> None:
            st.session_state["navigations"] += 1

        importlib.import_module(f"app.screens.{page}").render(target, renavigate)

    return AppTest.from_function(script, args=(page, target), default_timeout=TIMEOUT)
