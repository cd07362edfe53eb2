"""The app serves only exercises that `validate` would pass: the others are withdrawn and shown
on the Problems page, with the reason; proofs are remembered by file content."""

from __future__ import annotations

import shutil

import pytest

from app import services
from grader.course.exercises import EXERCISES_DIR, SOLUTIONS_DIR

from ..app_helpers import every_page_renders, main_test, page_test

pytestmark = pytest.mark.usefixtures("instructor")  # the Problems page is the instructor's

REAL_PROOFS_FAILED = services.proofs_failed  # the autouse fixture replaces it during tests


def test_an_exercise_whose_starter_passes_is_withdrawn(app_env, tmp_path, monkeypatch):
    root = tmp_path / "exercises"
    (root / "01_mlp").mkdir(parents=True)
    for name in ("scenario.toml", "01_dlogprobs.toml", "02_dprobs.toml"):
        shutil.copy(EXERCISES_DIR / "01_mlp" / name, root / "01_mlp" / name)
    shutil.copytree(SOLUTIONS_DIR / "01_mlp", root / "solutions" / "01_mlp")
    solution = (SOLUTIONS_DIR / "01_mlp" / "dprobs.py").read_text()
    path = root / "01_mlp" / "02_dprobs.toml"
    text = path.read_text()
    start = text.index('starter = """')
    end = text.index('"""', start + 13) + 3
    path.write_text(text[:start] + f'starter = """\n{solution}"""' + text[end:])
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(root))
    monkeypatch.setattr(services, "proofs_failed", REAL_PROOFS_FAILED)
    services.catalog()  # starts the proofs
    assert services._proofs(*services._version(), str(services.config().cache_dir)).done.wait(180)
    catalog = services.catalog()
    assert [e.id for e in catalog.exercises] == ["dlogprobs"]
    (error,) = catalog.errors
    assert error.where.endswith("02_dprobs.toml: starter") and "it must fail" in error.problem
    at = main_test().run()
    assert not at.exception
    problems = page_test(page="problems").run()
    assert any("02_dprobs.toml: starter`: passes every check" in e.value for e in problems.error)
    assert (app_env / "cache" / "proofs.json").exists(), "remembered for the next start"
    every_page_renders()


def _wrong_solution(root, solutions) -> str:
    (solutions / "01_mlp" / "dprobs.py").write_text("dprobs = dlogprobs * probs\n")
    return f"{solutions / '01_mlp' / 'dprobs.py'}`: fails:"


def _correct_mistake(root, solutions) -> str:
    path = root / "01_mlp" / "02_dprobs.toml"
    mistake = '\n[[mistakes]]\ncode = "dprobs = dlogprobs / probs"\nmessage = "Hint: no."\n'
    number = path.read_text().count("[[mistakes]]") + 1  # blocks are counted from 1
    path.write_text(path.read_text() + mistake)
    return f"02_dprobs.toml: [[mistakes]] {number}`: is not caught with its message; it passes"


@pytest.mark.parametrize(
    "breaks", [_wrong_solution, _correct_mistake], ids=lambda f: f.__name__
)  # a passing starter: test_an_exercise_whose_starter_passes_is_withdrawn
def test_an_exercise_validate_refuses_is_withdrawn_and_the_rest_served(
    app_env, tmp_path, monkeypatch, breaks
):
    root = tmp_path / "exercises"
    solutions = root / "solutions"  # a course keeps its answers inside it
    (root / "01_mlp").mkdir(parents=True)
    for name in ("scenario.toml", "01_dlogprobs.toml", "02_dprobs.toml"):
        shutil.copy(EXERCISES_DIR / "01_mlp" / name, root / "01_mlp" / name)
    shutil.copytree(SOLUTIONS_DIR / "01_mlp", solutions / "01_mlp")
    expected = breaks(root, solutions)
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(root))
    monkeypatch.setattr(services, "proofs_failed", REAL_PROOFS_FAILED)
    services.catalog()  # starts the proofs
    assert services._proofs(*services._version(), str(services.config().cache_dir)).done.wait(180)
    assert [e.id for e in services.catalog().exercises] == ["dlogprobs"]
    problems = page_test(page="problems").run()
    assert any(expected in e.value for e in problems.error), [e.value for e in problems.error]
    every_page_renders()
