"""Notebooks: the lecture's exercises found by content, refusals with their message, and
`python -m grader check my.ipynb` graded end to end (text and JSON)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import jsonschema
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from grader import notebook
from grader.feedback import voice as feedback
from grader.notebook import MISSING, UNFILLED, WRITTEN, NotebookError
from grader.result import Check, PassResult, Result
from grader.training.records import GradCheck

from ..cli_helpers import Ran, in_process
from ..fixtures import lecture_notebook as lecture

pytestmark = pytest.mark.slow  # most tests grade a whole notebook through the CLI

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / "docs" / "check-json.schema.json").read_text())
NAMES = ROOT.parent / "shared" / "data" / "names.txt"
WRONG_DLOGITS = "dlogits = F.softmax(logits, 1)\ndlogits[range(n), Yb] -= 1\n"


def raw(nb) -> bytes:
    """Return a notebook as the bytes of its file."""
    return nbformat.writes(nb).encode()


def read(nb, name: str = "my.ipynb") -> notebook.Found:
    return notebook.read(raw(nb), name)


def reordered(nb):
    """Return the notebook with its cells in reverse order."""
    nb.cells = list(reversed(nb.cells))
    return nb


def test_the_four_exercises_are_found_by_content():
    parts = read(lecture.build()).parts
    assert [(p.number, p.cell, p.state) for p in parts] == [
        (1, 9, WRITTEN), (2, 11, WRITTEN), (3, 13, WRITTEN), (4, 14, WRITTEN),
    ]  # fmt: skip
    assert "dlogprobs[range(n), Yb] = -1.0 / n" in parts[0].code
    assert parts[0].code.count("cmp('") == 26
    assert parts[1].code.count("dlogits") == 4 and "dhprebn" not in parts[1].code


def test_exercise_4_is_the_section_between_the_marker_and_grads():
    nb = lecture.build()
    section = read(nb).parts[3].code
    cell = nb.cells[13].source.splitlines()
    first = cell.index("  # manual backprop! #swole_doge_meme") + 1
    assert section.splitlines()[first:][:2] == [
        "# -----------------",
        "dlogits = F.softmax(logits, 1)",
    ]
    assert section.splitlines()[:first] == [""] * first, "line numbers are the cell's"
    assert section.rstrip().endswith("dC[ix] += demb[k,j]")
    assert "loss.backward" not in section and "grads" not in section and "lr" not in section
    compile(section, "<section>", "exec")  # dedented out of the loop, it is a program


def test_reordered_cells_are_still_found():
    nb = reordered(lecture.build())
    parts = read(nb).parts
    assert [p.state for p in parts] == [WRITTEN] * 4
    assert [p.cell for p in parts] == [len(nb.cells) + 1 - c for c in (9, 11, 13, 14)]
    assert [p.code for p in parts] == [p.code for p in read(lecture.build()).parts]


def test_autograd_cells_are_never_part_of_an_exercise():
    for part in read(lecture.build()).parts:
        assert "backward()" not in part.code and "requires_grad" not in part.code


def test_a_lecture_blank_counts_as_not_written_and_a_deleted_cell_as_missing():
    nb = lecture.build(exercise3=lecture.BLANKS["exercise3"])
    del nb.cells[10]  # Exercise 2's cell
    parts = read(nb).parts
    assert [p.state for p in parts] == [WRITTEN, MISSING, UNFILLED, WRITTEN]
    assert parts[1].cell is None and parts[2].cell == 12


def test_magics_are_commented_out_not_graded():
    nb = lecture.build(exercise2="%time\n" + lecture.EXERCISE2)
    assert "# %time\ndlogits = F.softmax" in read(nb).parts[1].code


def test_an_nbformat_3_notebook_is_converted_and_read_alike():
    from nbformat import v3

    cells = [
        v3.new_code_cell(input=c.source)
        if c.cell_type == "code"
        else v3.new_text_cell("markdown", source=c.source)
        for c in lecture.build().cells
    ]
    old = v3.new_notebook(worksheets=[v3.new_worksheet(cells=cells)])
    parts = notebook.read(nbformat.writes(old, version=3).encode(), "old.ipynb").parts
    assert [p.code for p in parts] == [p.code for p in read(lecture.build()).parts]


def test_a_cell_that_does_not_parse_counts_as_written_for_the_grader_to_report():
    nb = lecture.build(exercise2="dlogits = F.softmax(logits, 1\n")
    assert read(nb).parts[1].state == WRITTEN


class FakeGrader:
    """Stands in for grader.Grader: records what it grades and solves everything."""

    def __init__(self, catalog):
        self.catalog, self.graded = catalog, []

    def header(self, scenario=None) -> dict:
        return {"scenario": "makemore MLP", "parameters": 4137, "loss": 3.3, "sizes": {}}

    def grade_pass(self, code, scenario=None) -> PassResult:
        self.graded.append(("whole_pass", scenario))
        return PassResult(True, self.header(), (), None, "All 26 gradients match autograd.")

    def grade(self, exercise_id, code) -> Result:
        self.graded.append((exercise_id, code.count("\n")))
        return Result(exercise_id, "d", True, (Check("sizes", "pass", "right"),))


def _raises(code):
    raise RuntimeError("no sandbox")


def test_grade_sends_each_written_exercise_to_its_grader_and_nothing_else(catalog):
    nb = lecture.build(exercise3=lecture.BLANKS["exercise3"])
    del nb.cells[10]  # Exercise 2's cell
    grader = FakeGrader(catalog)
    result = notebook.grade(read(nb), grader, _raises)
    assert grader.graded == [("whole_pass", "01_mlp")], "blank and missing exercises never run"
    assert [p.status for p in result.parts] == ["solved", "missing", "unfilled", "grader_failed"]
    assert result.parts[3].summary == feedback.GRADER_FAULT
    assert result.status == "grader_failed" and not result.solved and result.scenario == "01_mlp"


def test_grade_is_solved_only_when_all_four_are(catalog):
    grader = FakeGrader(catalog)
    passed = GradCheck(True, (), None, "All seven gradients match autograd.")
    result = notebook.grade(read(lecture.build()), grader, lambda code: passed)
    assert [kind for kind, _ in grader.graded] == ["whole_pass", "dlogits_fused", "dhprebn_fused"]
    assert result.solved and result.message == feedback.notebook_solved(4)
    failed = GradCheck(False, (), "dC", "`dC` does not match autograd.")
    result = notebook.grade(read(lecture.build()), grader, lambda code: failed)
    assert result.status == "not_solved"
    assert result.message == feedback.notebook_left((notebook.TITLES[4],))


def test_a_notebook_right_but_for_a_shape_says_it_matches_the_lecture_first(catalog):
    grader = FakeGrader(catalog)
    slip = PassResult(False, grader.header(), (), None, "a shape to fix", shape_slips=("dbnmeani",))
    grader.grade_pass = lambda code, scenario=None: slip
    passed = GradCheck(True, (), None, "All seven gradients match autograd.")
    result = notebook.grade(read(lecture.build()), grader, lambda code: passed)
    assert result.status == "not_solved" and result.shapes_only == ("dbnmeani",)
    assert result.message == feedback.notebook_matches_lecture(("dbnmeani",), 3)
    assert result.message.startswith("Your notebook matches the lecture: every gradient")
    wrong = replace(slip, root_cause="dprobs", shape_slips=())
    grader.grade_pass = lambda code, scenario=None: wrong
    result = notebook.grade(read(lecture.build()), grader, lambda code: passed)
    assert not result.shapes_only
    assert result.message == feedback.notebook_left((notebook.TITLES[1],))


def _no_exercises():
    nb = lecture.build()
    nb.cells = [c for c in nb.cells if "cmp('" not in c.source and "manual" not in c.source]
    return raw(nb)


def _not_lecture():
    return raw(new_notebook(cells=[new_code_cell("print('hello')\nx = 1\n")]))


def _invalid():
    nb = json.loads(raw(lecture.build()))
    del nb["cells"][1]["outputs"]
    return json.dumps(nb).encode()


REFUSALS = [
    (
        "not json",
        lambda: b"not a notebook",
        feedback.notebook_not_json("my.ipynb", "Expecting value at line 1, column 1"),
    ),  # noqa: E501
    (
        "json list",
        lambda: b"[1, 2]",
        feedback.notebook_malformed("my.ipynb", "it has no `nbformat` version"),
    ),  # noqa: E501
    (
        "invalid",
        _invalid,
        feedback.notebook_malformed("my.ipynb", "'outputs' is a required property"),
    ),  # noqa: E501
    ("not the lecture", _not_lecture, feedback.notebook_not_lecture("my.ipynb")),
    ("no exercise cells", _no_exercises, feedback.notebook_no_exercises("my.ipynb")),
    (
        "all blank",
        lambda: raw(lecture.blank()),
        feedback.notebook_nothing_written("my.ipynb", tuple(notebook.TITLES.values())),
    ),  # noqa: E501
]


@pytest.mark.parametrize(
    ("make", "message"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_a_notebook_that_cannot_be_graded_is_refused_with_its_message(make, message):
    with pytest.raises(NotebookError) as refused:
        notebook.read(make(), "my.ipynb")
    assert str(refused.value) == message


def process(*args) -> subprocess.CompletedProcess:
    """Run `python -m grader check args` in a process of its own."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    return subprocess.run(
        [sys.executable, "-m", "grader", "check", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def cli(*args) -> Ran:
    """Run `check args` by the CLI's main in this process, on the shared sandbox."""
    return in_process("check", *args)


@pytest.mark.parametrize(
    ("make", "message"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_the_cli_refuses_it_with_exit_2_and_valid_json(tmp_path, make, message):
    path = tmp_path / "my.ipynb"
    path.write_bytes(make())
    done = cli(path)
    assert done.returncode == 2 and done.stderr == f"error: {message}\n" and not done.stdout
    as_json = cli(path, "--json")
    payload = json.loads(as_json.stdout)
    jsonschema.validate(payload, SCHEMA)
    assert as_json.returncode == 2 and payload["kind"] == "notebook"
    assert payload["status"] == "bad_input" and payload["summary"] == message


def test_the_cli_grades_the_lecture_notebook_solved(tmp_path):
    """The whole notebook, graded by `python -m grader check` in a process of its own."""
    path = lecture.write(lecture.build(), tmp_path / "my.ipynb")
    done = process(path)
    assert done.returncode == 0, done.stdout + done.stderr
    for line in [
        "Exercise 1 (the whole pass), cell 9: solved",
        "Exercise 2 (`dlogits`), cell 11: solved",
        "Exercise 3 (`dhprebn`), cell 13: solved",
        "Exercise 4 (the training loop's backward pass), cell 14: solved",
        "All 26 gradients match autograd.",
        "All seven gradients match autograd",
        feedback.notebook_solved(4),
    ]:
        assert line in done.stdout


def test_the_cli_grades_it_reordered_on_names_txt_as_json(tmp_path):
    if not NAMES.exists():
        pytest.skip(f"the lecture's names.txt is not at {NAMES}")
    nb = reordered(lecture.build())
    path = lecture.write(nb, tmp_path / "my.ipynb")
    done = cli(path, "--data", NAMES, "--json", "--learner", "ada")
    payload = json.loads(done.stdout)
    jsonschema.validate(payload, SCHEMA)
    assert done.returncode == 0 == payload["exit_code"], done.stderr
    assert payload["kind"] == "notebook" and payload["learner"] == "ada"
    assert payload["score"] == {"passed": 4, "total": 4}
    assert payload["dataset"]["train"] == 182625
    parts = payload["parts"]
    assert [p["cell"] for p in parts] == [len(nb.cells) + 1 - c for c in (9, 11, 13, 14)]
    assert [len(p["gradients"]) for p in parts] == [26, 0, 0, 7]
    assert [len(p["checks"]) for p in parts] == [0, 6, 6, 0]


def test_wrong_raising_and_blank_exercises_exit_1_and_are_named(tmp_path):
    section = lecture.SECTION + "boom = 1 / 0\n"
    nb = lecture.build(
        exercise2=WRONG_DLOGITS, exercise3=lecture.BLANKS["exercise3"], section=section
    )
    path = lecture.write(nb, tmp_path / "my.ipynb")
    done = cli(path)
    assert done.returncode == 1, done.stdout + done.stderr
    line = nb.cells[13].source.splitlines().index("  boom = 1 / 0") + 1
    assert f"Your code raised ZeroDivisionError on line {line}:" in done.stdout, "the cell's line"
    assert "Exercise 2 (`dlogits`), cell 11: not yet" in done.stdout
    assert "every row's gradient is divided by n" in done.stdout
    assert "Exercise 3 (`dhprebn`), cell 13: not written yet" in done.stdout
    assert feedback.notebook_left(tuple(notebook.TITLES.values())[1:]) in done.stdout
    as_json = cli(path, "--json")
    payload = json.loads(as_json.stdout)
    jsonschema.validate(payload, SCHEMA)
    assert as_json.returncode == 1 and payload["status"] == "not_solved"
    statuses = [p["status"] for p in payload["parts"]]
    assert statuses == ["solved", "not_solved", "unfilled", "not_solved"]


def test_a_notebook_takes_no_exercise_or_scenario(tmp_path):
    path = lecture.write(lecture.build(), tmp_path / "my.ipynb")
    done = cli(path, "--exercise", "dlogits_fused")
    assert done.returncode == 2
    assert done.stderr == "error: a notebook is graded whole: leave out --exercise and --scenario\n"


def test_a_grader_that_cannot_start_its_sandbox_exits_3(tmp_path, monkeypatch):
    path = lecture.write(lecture.build(), tmp_path / "my.ipynb")
    monkeypatch.setattr(sys, "executable", "/nonexistent/python3")  # no zygote can start
    done = in_process("check", path, "--json", lend=False)
    payload = json.loads(done.stdout)
    jsonschema.validate(payload, SCHEMA)
    assert done.returncode == 3 == payload["exit_code"] and payload["status"] == "grader_failed"
    assert "error: the grader failed; this is not a problem with your code" in done.stderr
