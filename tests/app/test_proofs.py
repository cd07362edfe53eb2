"""The app serves only exercises that `validate` would pass: the others are withdrawn and shown
on the Problems page, with the reason; proofs are remembered by file content."""

from __future__ import annotations

import shutil

from app import services
from grader.exercises import EXERCISES_DIR

from .app_helpers import main_test, page_test

REAL_PROOFS_FAILED = services.proofs_failed  # the autouse fixture replaces it during tests


def test_an_exercise_whose_starter_passes_is_withdrawn(app_env, tmp_path, monkeypatch):
    root = tmp_path / "exercises"
    (root / "01_mlp").mkdir(parents=True)
    for name in ("scenario.toml", "01_dlogprobs.toml", "02_dprobs.toml"):
        shutil.copy(EXERCISES_DIR / "01_mlp" / name, root / "01_mlp" / name)
    solution = (EXERCISES_DIR.parent / "solutions" / "01_mlp" / "dprobs.py").read_text()
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
    assert any("02_dprobs.toml: starter" in e.value for e in problems.error)
    assert (app_env / "cache" / "proofs.json").exists(), "remembered for the next start"
