"""Exercise files: discovery in teaching order, defaults, and schema errors by file and field."""

from __future__ import annotations

import re
import shutil

import pytest

from grader.course.exercises import EXERCISES_DIR, discover

ORDER = [
    "dlogprobs",
    "dprobs",
    "dcounts_sum_inv",
    "dcounts_sum",
    "dcounts",
    "dnorm_logits",
    "dlogit_maxes",
    "dlogits",
    "dh",
    "dW2",
    "db2",
    "dhpreact",
    "dbngain",
    "dbnbias",
    "dbnraw",
    "dbnvar_inv",
    "dbnvar",
    "dbndiff2",
    "dbndiff",
    "dbnmeani",
    "dhprebn",
    "dembcat",
    "dW1",
    "db1",
    "demb",
    "dC",
    "dlogits_fused",
    "dhprebn_fused",
]


def test_the_lecture_exercises_in_teaching_order(catalog):
    ids = [e.id for e in catalog.exercises if e.scenario.slug == "01_mlp"]
    assert ids == ORDER
    assert not catalog.errors


def test_every_exercise_is_complete(catalog):
    for exercise in catalog.exercises:
        assert exercise.prompt and exercise.starter.strip(), exercise.id
        assert len(exercise.hints) >= 2, exercise.id
        assert exercise.solution_path.exists(), exercise.id


def _quoted(prompt: str) -> list[str]:
    """Return the lines of a prompt's Python code blocks that assign a name."""
    blocks = re.findall(r"```python\n(.*?)```", prompt, re.S)
    return [text for block in blocks for text in block.splitlines() if re.match(r"\w+ = ", text)]


@pytest.mark.parametrize("exercise_id", [e.id for e in discover(EXERCISES_DIR).exercises])
def test_a_prompt_quotes_its_scenarios_lines_as_written(catalog, exercise_id):
    # The scenario is where the forward pass is written; a prompt may quote it, never vary it.
    exercise = catalog.get(exercise_id)
    stmts = exercise.scenario.setup + exercise.scenario.forward
    written = {s.target: f"{s.source}  # {s.shape}" for s in stmts}
    for text in _quoted(exercise.prompt):
        name = text.split(" = ", 1)[0]
        assert name not in written or text == written[name], text


def test_defaults_come_from_the_scenario(catalog):
    counts = catalog.get("dcounts")
    assert counts.answer == "dcounts" and counts.given == ("counts_sum", "probs")
    fused = catalog.get("dlogits_fused")
    assert fused.answer == "dlogits" and fused.given == ("loss",)


@pytest.fixture
def copy(tmp_path):
    """Copy the lecture scenario and two exercises into a scratch exercises folder."""
    folder = tmp_path / "01_mlp"
    folder.mkdir()
    for name in ("scenario.toml", "01_dlogprobs.toml", "05_dcounts.toml"):
        shutil.copy(EXERCISES_DIR / "01_mlp" / name, folder / name)
    return folder


@pytest.mark.parametrize(
    ("edit", "field", "problem"),
    [
        (lambda t: t + 'difficulty = "hard"\n', "difficulty", "unknown key"),
        (lambda t: t.replace('target = "counts"', 'target = "cnts"'), "target", "not in the"),
        (lambda t: t.replace("hints = [", "hints = [] \nold = ["), "old", "unknown key"),
        (lambda t: t.replace('title = "dcounts', "title = 3 #"), "title", "must be a string"),
        (lambda t: t.replace("[[mistakes]]", "[[mistakes]]\nwhy = 1"), "[[mistakes]] 1: why", ""),
        (lambda t: t + "[[", "", "is not valid TOML"),
        (lambda t: "atol = 2.0\n" + t, "atol", "below 1"),
        (lambda t: 'rtol = "loose"\n' + t, "rtol", "must be a number"),
        (lambda t: "atol = 1\n" + t, "atol", "must be a number"),
    ],
)
def test_a_malformed_file_is_reported_and_the_rest_load(copy, edit, field, problem):
    path = copy / "05_dcounts.toml"
    path.write_text(edit(path.read_text()))
    catalog = discover(copy.parent)
    assert [e.id for e in catalog.exercises] == ["dlogprobs"]
    (error,) = catalog.errors
    assert error.where.startswith(str(path))
    assert error.where.endswith(field) and problem in error.problem


def test_one_hint_is_not_enough(copy):
    path = copy / "01_dlogprobs.toml"
    text = path.read_text()
    start = text.index("hints = [")
    end = text.index("]\n", start) + 2
    path.write_text(text[:start] + 'hints = ["only one"]\n' + text[end:])
    (error,) = discover(copy.parent).errors
    assert error.where.endswith("hints") and "two hints" in error.problem


def test_bad_file_names_and_duplicate_ids(copy):
    (copy / "dcounts.toml").write_text((copy / "05_dcounts.toml").read_text())
    (copy / "06_dcounts.toml").write_text((copy / "05_dcounts.toml").read_text())
    catalog = discover(copy.parent)
    problems = sorted(e.problem for e in catalog.errors)
    assert any("NN_id.toml" in p for p in problems)
    assert any("id `dcounts` is also used" in p for p in problems)
    assert [e.id for e in catalog.exercises] == ["dlogprobs", "dcounts"], "the first one stays"
    assert catalog.get("dcounts").path == copy / "05_dcounts.toml"


def test_an_id_used_in_another_scenario_is_withdrawn_there(copy):
    other = copy.parent / "02_again"
    shutil.copytree(copy, other)
    (other / "05_dcounts.toml").unlink()
    catalog = discover(copy.parent)
    (error,) = catalog.errors
    assert error.where == str(other / "01_dlogprobs.toml")
    keeper = copy / "01_dlogprobs.toml"
    assert f"id `dlogprobs` is also used by {keeper}, which keeps it; this file is left out" in (
        error.problem
    )
    assert [e.id for e in catalog.exercises] == ["dlogprobs", "dcounts"]


@pytest.mark.parametrize("name", ["progress", "training", "problems", "home", "whole_pass_x"])
def test_an_id_taking_a_page_address_is_reported_and_withdrawn(copy, name):
    (copy / f"07_{name}.toml").write_text((copy / "05_dcounts.toml").read_text())
    catalog = discover(copy.parent)
    (error,) = catalog.errors
    assert error.where == str(copy / f"07_{name}.toml") and "app's own pages" in error.problem
    assert name not in [e.id for e in catalog.exercises]


def test_a_broken_scenario_hides_only_its_folder(copy):
    (copy / "scenario.toml").write_text('title = "x"\n')
    catalog = discover(copy.parent)
    assert catalog.exercises == () and len(catalog.errors) == 1
    assert catalog.errors[0].where.endswith("output")


def test_a_binary_file_is_reported_by_name_and_the_rest_load(copy):
    path = copy / "05_dcounts.toml"
    path.write_bytes(b"\xff\xfe\x00\x89PNG\x00" * 20)
    catalog = discover(copy.parent)
    assert [e.id for e in catalog.exercises] == ["dlogprobs"]
    (error,) = catalog.errors
    assert error.where == str(path) and "is not valid TOML" in error.problem


NEARLY = "dcounts = counts_sum_inv * dprobs + dcounts_sum + 1e-4\n"


def test_an_exercise_can_set_its_own_tolerance(copy, default_data):
    from grader import Grader

    strict = Grader(default_data, discover(copy.parent)).grade("dcounts", NEARLY)
    assert not strict.solved
    assert "tolerance 1e-08 + 1e-05" in strict.summary()
    path = copy / "05_dcounts.toml"
    path.write_text("atol = 1e-3\n" + path.read_text())
    catalog = discover(copy.parent)
    assert catalog.get("dcounts").tolerance == (1e-3, 1e-5)
    loose = Grader(default_data, catalog).grade("dcounts", NEARLY)
    assert loose.solved, loose.summary()


def _without_explain(text: str) -> str:
    """Return an exercise file's text with its `explain` key removed."""
    start = text.index("explain = '''")
    end = text.index("'''\n", start + 13) + 4
    return text[:start] + text[end:]


def _two_hints(text: str) -> str:
    """Return an exercise file's text with only two hints."""
    start = text.index("hints = [")
    end = text.index("]\n", start) + 2
    return text[:start] + 'hints = ["What shape?", "Nearly the answer."]\n' + text[end:]


@pytest.mark.parametrize(
    ("edit", "field", "problem"),
    [
        (_without_explain, "explain", "needs a why card"),
        (lambda t: "explain = '  '\n" + _without_explain(t), "explain", "why card"),
        (_two_hints, "hints", "at least three hints"),
        (lambda t: 'lecture = "1:65:17"\n' + _without_lecture(t), "lecture", "such as `1:05:17`"),
        (lambda t: 'lecture = "https://youtu.be/x"\n' + _without_lecture(t), "lecture", "a URL on"),
        (lambda t: 'derivation = ["one step"]\n' + t, "derivation", "at least two steps"),
        (lambda t: 'derivation = ["a", " "]\n' + t, "derivation", "non-empty strings"),
        (lambda t: "explain = 3\n" + _without_explain(t), "explain", "must be a string"),
    ],
)
def test_a_lecture_exercise_needs_a_why_card_and_three_hints(copy, edit, field, problem):
    path = copy / "05_dcounts.toml"
    path.write_text(edit(path.read_text()))
    catalog = discover(copy.parent)
    assert [e.id for e in catalog.exercises] == ["dlogprobs"]
    (error,) = catalog.errors
    assert error.where == f"{path}: {field}" and problem in error.problem


def test_outside_the_lecture_a_why_card_and_a_third_hint_are_optional(copy):
    scenario = copy / "scenario.toml"
    scenario.write_text(scenario.read_text().replace('lecture = "0:13:01"\n', ""))
    path = copy / "05_dcounts.toml"
    path.write_text(_two_hints(_without_explain(_without_lecture(path.read_text()))))
    catalog = discover(copy.parent)
    assert not catalog.errors
    dcounts = catalog.get("dcounts")
    assert not dcounts.taught_in_lecture and dcounts.explain == "" and len(dcounts.hints) == 2


def _without_lecture(text: str) -> str:
    """Return an exercise file without its own `lecture` key."""
    return re.sub(r'^lecture = ".*"\n', "", text, flags=re.M)


def test_a_malformed_scenario_lecture_names_the_scenario_file(copy):
    scenario = copy / "scenario.toml"
    scenario.write_text(scenario.read_text().replace('"0:13:01"', '"thirteen minutes"'))
    (error,) = discover(copy.parent).errors
    assert error.where == f"{scenario}: lecture" and "thirteen minutes" in error.problem


def test_the_scenario_gives_the_link_and_an_exercise_may_name_its_own(copy):
    dlogprobs = copy / "01_dlogprobs.toml"
    dlogprobs.write_text(_without_lecture(dlogprobs.read_text()))  # the scenario's link
    path = copy / "05_dcounts.toml"
    path.write_text('lecture = "1:05:17"\n' + _without_lecture(path.read_text()))
    catalog = discover(copy.parent)
    assert catalog.get("dlogprobs").lecture.url.endswith("&t=781")
    assert catalog.get("dcounts").lecture.url.endswith("&t=3917")


def test_the_lecture_exercises_teach(catalog):
    for exercise in catalog.exercises:
        if exercise.scenario.slug == "01_mlp":
            assert exercise.taught_in_lecture, exercise.id
            assert 3 <= len(exercise.hints) <= 4, exercise.id
            assert "**Why.**" in exercise.explain and "**The rule.**" in exercise.explain
            assert exercise.mistakes, f"{exercise.id} lists no common mistake"
    links = {e.id: e.lecture.time for e in catalog.exercises if e.lecture}
    assert links["dlogprobs"] == "0:13:01" and links["dbnvar"] == "1:04:12"
    assert links["dlogits_fused"] == "1:26:31" and links["dhprebn_fused"] == "1:36:37"
    assert len(catalog.get("dlogits_fused").derivation) >= 4
    assert len(catalog.get("dhprebn_fused").derivation) >= 4


def test_the_layernorm_exercises_have_three_hints_and_a_why_card(catalog):
    for exercise in catalog.exercises:
        if exercise.scenario.slug == "02_layernorm":
            assert not exercise.taught_in_lecture
            assert len(exercise.hints) >= 3 and exercise.explain, exercise.id


def test_the_template_is_a_valid_lecture_exercise_with_every_key(copy):
    template = (EXERCISES_DIR / "_template" / "01_example.toml").read_text()
    for key in ("lecture", "derivation", "given", "answer"):
        assert f"# {key} = " in template, f"the template documents `{key}`"
    opened = template.replace('# lecture = "0:13:01"', 'lecture = "1:05:17"')
    opened = opened.replace("# derivation = [", "derivation = [").replace('#   "', '  "')
    opened = opened.replace("# ]\n", "]\n")
    (copy / "09_example.toml").write_text(opened)
    catalog = discover(copy.parent)
    assert not catalog.errors
    example = catalog.get("example")
    assert example.lecture.time == "1:05:17" and len(example.derivation) == 2
    assert len(example.hints) >= 3 and example.explain.startswith("**Why.**")
