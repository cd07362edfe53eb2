"""The scenario language end to end: a scenario using every construct (tests/grader/fixtures/
language) validates, right answers are solved, wrong ones are told their misconception, and
what the language cannot say is refused at the scenario's own line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from grader import Grader
from grader.course.exercises import EXERCISES_DIR, discover
from grader.proving.prover import validate
from grader.proving.scenariocheck import check_scenario, given_cuts
from grader.result import FAIL

FIXTURE = Path(__file__).parents[1] / "fixtures" / "language"
SOLUTIONS = FIXTURE / "exercises" / "solutions"  # a course keeps its answers inside it


@pytest.fixture
def folder(tmp_path):
    """Return a copy of the fixture's exercises, to edit."""
    shutil.copytree(FIXTURE / "exercises", tmp_path / "exercises")
    return tmp_path / "exercises"


@pytest.fixture(scope="module")
def language_grader(default_data):
    return Grader(default_data, discover(FIXTURE / "exercises"))


def _first_failure(result) -> str:
    failed = next((c for c in result.checks if c.status == FAIL), None)
    return f"{failed.message} {failed.hint}" if failed else ""


def test_the_scenario_using_every_construct_validates():
    count, findings = validate(FIXTURE / "exercises")
    assert count == 7 and findings == []


def test_each_construct_lowers_to_its_own_tensors():
    (scenario,) = discover(FIXTURE / "exercises").scenarios
    loop = [s.source for s in scenario.forward if s.line == 3]
    assert loop == [
        "r_2 = r_1 + torch.tanh(r_1 @ W[1]) * math.sqrt(0.5)",
        "r = r_2 + torch.tanh(r_2 @ W[2]) * math.sqrt(0.5)",
    ]
    assert scenario.consumers("r") == ("a", "b")  # tuple unpacking: a tensor per name
    assert scenario.consumers("u") == ("best", "hr_1")  # not the mask, not the indices
    assert not scenario.differentiable("relu") and not scenario.differentiable("top")
    assert scenario.statement("hr").source == "hr = hr_1.mul(keep)"


@pytest.mark.parametrize(
    ("exercise", "code"),
    [
        ("dhr_1", "dhr_1 = dhr * keep"),
        ("du", "du = dhr_1 * relu + F.one_hot(top, u.shape[1]).double() * dbest[:, None]"),
        ("dr", "dr = da @ W1[:, : da.shape[1]].T + db @ W1[:, da.shape[1] :].T"),
        ("dhr", "dhr = dy * 1.0"),
    ],
)
def test_right_answers_are_solved(language_grader, exercise, code):
    result = language_grader.grade(exercise, code)
    assert result.solved, _first_failure(result)


@pytest.mark.parametrize(
    ("exercise", "code", "diagnosis"),
    [
        ("dhr_1", "dhr_1 = -dhr * keep", "opposite sign"),  # in place, a fixed dropout mask
        ("dhr_1", "dhr_1 = dhr * keep * 2", "constant factor of 2"),
        ("dhr_1", "dhr_1 = dhr", "multiplied by the dropout mask"),  # the listed mistake
        ("du", "du = dhr_1 * relu", "`u` is also used by `best`"),  # mask and indices
        (
            "du",
            "du = dhr_1 * relu - F.one_hot(top, u.shape[1]).double() * dbest.view(-1, 1)",
            "flows back through `best` has the opposite sign",
        ),
        ("db", "s = torch.sigmoid(b)\ndb = du_1 * a * s * (1 - s)", "`b` is also used by `u`"),
        (
            "dr",
            "dr = torch.cat([da, torch.zeros_like(db)], 1) @ W1.T",
            "`r` is also used by `b`",
        ),  # tuple unpacking
        ("dr", "dr = -torch.cat([da, db], 1) @ W1.T", "opposite sign"),
        (
            "dr_1",
            "t = torch.tanh(r_1 @ W[1])\ndr_1 = (dr_2 * (1 - t**2) * math.sqrt(0.5)) @ W[1].T",
            "also flows straight through",
        ),  # a loop, math
        ("dhr", "dhr = dy.sum(0, keepdim=True)", "do not sum there"),  # a non-scalar output
        ("dhr", "dhr = dy * 2", "constant factor of 2"),
    ],
)
def test_wrong_answers_are_told_their_misconception(language_grader, exercise, code, diagnosis):
    result = language_grader.grade(exercise, code)
    assert not result.solved
    assert diagnosis in _first_failure(result)


def test_the_whole_pass_of_the_scenario_is_graded(language_grader):
    code = (SOLUTIONS / "90_language" / "whole_pass.py").read_text()
    result = language_grader.grade_pass(code, "90_language")
    assert result.solved, result.message
    assert [r.name for r in result.rows][:2] == ["dhr", "dhr_1"]
    broken = language_grader.grade_pass(code.replace("dhr * keep", "dhr"), "90_language")
    assert not broken.solved and broken.root_cause == "dhr_1"


def _edit(folder: Path, old: str, new: str) -> None:
    path = folder / "90_language" / "scenario.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new", "where", "problem"),
    [
        ("hr.mul_(keep)", "hr[0] = 0.0", "forward.code", "line 11: assign to names only"),
        ("hr.mul_(keep)", "hr.zero_()", "forward.code", "line 11: `zero_` has no out-of-place"),
        ("range(1, 3)", "range(n)", "forward.code", "line 2: a loop must run over `range`"),
    ],
)
def test_what_the_language_cannot_say_is_refused_at_its_line(folder, old, new, where, problem):
    _edit(folder, old, new)
    catalog = discover(folder)
    (error,) = catalog.errors
    assert error.where.endswith(f"scenario.toml: {where}") and problem in error.problem
    count, findings = validate(folder)
    assert any(f.where.endswith(where) and problem in f.problem for f in findings)


def test_a_line_the_language_misjudges_is_reported_by_autograd(folder):
    _edit(
        folder,
        "y = hr + best.view(n, 1)  # (n, h)",
        "y = hr + best.view(n, 1)  # (n, h)\nz = x * 2",
    )
    (scenario,) = discover(folder).scenarios
    ((where, problem),) = check_scenario(scenario)
    assert where.endswith("scenario.toml:45: forward.code line 13")
    assert "`z` gets no gradient from autograd" in problem


def test_a_target_or_given_without_a_gradient_is_refused(folder):
    path = folder / "90_language" / "02_du.toml"
    path.write_text(path.read_text().replace('target = "u"', 'target = "relu"'))
    (error,) = discover(folder).errors
    assert error.where.endswith("02_du.toml: target") and "has no gradient" in error.problem
    path.write_text(path.read_text().replace('target = "relu"', 'target = "u"\ngiven = ["top"]'))
    (error,) = discover(folder).errors
    assert error.where.endswith("02_du.toml: given") and "has no gradient to give" in error.problem


def test_an_exercise_with_several_answers_checks_each(language_grader):
    right = (SOLUTIONS / "90_language" / "dab.py").read_text()
    result = language_grader.grade("dab", right)
    assert result.solved and [p.answer for p in result.parts] == ["da", "db"]
    assert all(p.solved for p in result.parts)
    result = language_grader.grade("dab", right.replace("da = du_1 * s", "da = -du_1 * s"))
    assert not result.solved and result.answer == "da" and result.exercise == "dab"
    assert "opposite sign" in _first_failure(result) and result.parts[1].solved
    result = language_grader.grade("dab", right.replace(" + du\n", "\n"))
    assert not result.solved and result.answer == "db" and result.parts[0].solved
    assert "`u += b` reads `b` too" in _first_failure(result)


def test_a_given_must_cut_the_path_of_every_answer(folder):
    path = folder / "90_language" / "07_dab.toml"
    path.write_text('given = ["u_1"]\n' + path.read_text())
    ((where, problem),) = given_cuts(discover(folder).get("dab"))
    assert where.endswith("07_dab.toml: given") and "leaves a path from `b` to `y`" in problem


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('answers = ["da"]', "lists at least two gradients"),
        ('answers = ["da", "dtop"]', "`dtop` is not `d` + a tensor"),
        ('answers = ["db", "du"]', "must include `da`"),
        ('answers = ["da", "db"]\nanswer = "da"', "set `answers` or `answer`, not both"),
    ],
)
def test_answers_are_checked_against_the_scenario(folder, line, problem):
    path = folder / "90_language" / "07_dab.toml"
    path.write_text(path.read_text().replace('answers = ["da", "db"]', line))
    (error,) = discover(folder).errors
    assert error.where.endswith("07_dab.toml: answers") and problem in error.problem


@pytest.fixture
def layernorm64(tmp_path, default_data):
    """Return a grader over a copy of the LayerNorm scenario with a float64 exercise added."""
    folder = tmp_path / "exercises" / "02_layernorm"
    shutil.copytree(EXERCISES_DIR / "02_layernorm", folder)
    text = (folder / "02_drstd.toml").read_text()
    (folder / "04_drstd64.toml").write_text('dtype = "float64"\n' + text)
    return Grader(default_data, discover(folder.parent))


def test_an_exercise_in_float64_gives_float64_inputs_and_wants_float64(layernorm64):
    answer = "drstd = (xc * dxhat).sum(-1, keepdim=True)"
    result = layernorm64.grade("drstd64", answer)
    assert result.solved, _first_failure(result)
    prepared = layernorm64.prepared(layernorm64.catalog.get("drstd64"))
    assert prepared.case("lecture").tensors["xc"].dtype == prepared.expected["lecture"].dtype
    assert prepared.expected["lecture"].dtype == torch.float64
    result = layernorm64.grade("drstd64", answer + ".float()")
    assert not result.solved and "got torch.float32, expected torch.float64" in _first_failure(
        result
    )
    assert layernorm64.grade("drstd", answer + ".float()").solved  # the scenario's own dtype


def test_an_unknown_dtype_is_refused(folder):
    path = folder / "90_language" / "07_dab.toml"
    path.write_text('dtype = "float16"\n' + path.read_text())
    (error,) = discover(folder).errors
    assert error.where.endswith("07_dab.toml: dtype") and "float32, float64" in error.problem


def test_the_authoring_docs_worked_example_validates(tmp_path, monkeypatch):
    readme = (Path(__file__).resolve().parents[3] / "docs" / "authoring.md").read_text()
    start = readme.index('title = "A residual stack"')
    folder = tmp_path / "exercises" / "05_residual"
    folder.mkdir(parents=True)
    (folder / "scenario.toml").write_text(readme[start : readme.index("~~~", start)])
    (folder / "01_db.toml").write_text(
        'title = "db"\ntarget = "b"\nprompt = "Write `db`."\nstarter = "db = ..."\n'
        'hints = ["Two lines read `b`.", "Add both contributions."]\n'
    )
    solutions = tmp_path / "exercises" / "solutions" / "05_residual"  # inside the course
    solutions.mkdir(parents=True)
    (solutions / "db.py").write_text("s = torch.sigmoid(b)\ndb = du_1 * a * s * (1 - s) + du\n")
    assert discover(folder.parent).get("db").given == ("u_1", "u")  # as the doc says
    assert validate(folder) == (1, [])


def test_a_course_of_other_sizes_is_told_in_its_own_words_and_sizes(language_grader):
    """A size typed in a course that is not the lecture: the hint quotes this course's sizes
    (n=8, d=6, h=10), never the lecture's 32, 64, 27, and no title says "lecture"."""
    result = language_grader.grade("dhr", "dhr = dy.reshape(8, 10) * 1.0")
    assert not result.solved
    sizes = next(c for c in result.checks if c.kind == "sizes")
    assert sizes.status == FAIL and sizes.misconception == "hard_coded_size"
    assert "numbers like 8, 6 or 10" in sizes.message.split(". ")[0], "the mistake said first"
    assert not any(n in sizes.message.split(". ")[0] for n in ("32", "64", "27"))
    words = " ".join(f"{c.title} {c.message} {c.hint}" for c in result.checks)
    assert "lecture" not in words.lower()
    assert "Main batch" in next(c.title for c in result.checks if c.kind == "lecture")
