"""A scenario that fails to run is withdrawn whole, reported at its program and line."""

from __future__ import annotations

import shutil

from grader.course.exercises import EXERCISES_DIR, discover
from grader.proving.scenarios import runnable


def _copy(tmp_path, *slugs):
    for slug in slugs:
        shutil.copytree(EXERCISES_DIR / slug, tmp_path / slug)
    return tmp_path


def _edit(path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_sound_scenarios_are_all_kept(tmp_path):
    catalog = discover(_copy(tmp_path, "02_layernorm", "03_attention"))
    assert runnable(catalog) == catalog


def test_a_raising_line_withdraws_its_scenario_and_exercises(tmp_path):
    root = _copy(tmp_path, "02_layernorm", "03_attention")
    _edit(root / "03_attention/scenario.toml", "v = x @ Wv  #", "v = x @ Wv.T  #")
    catalog = runnable(discover(root))
    assert [s.slug for s in catalog.scenarios] == ["02_layernorm"]
    assert {e.scenario.slug for e in catalog.exercises} == {"02_layernorm"}
    (error,) = catalog.errors
    assert error.where == f"{root / '03_attention/scenario.toml'}:43: forward.code line 3"
    assert error.problem.startswith("raises with sizes: `v = x @ Wv.T` raised RuntimeError")
    assert error.problem.endswith("its whole pass and its exercises)")


def test_a_line_that_raises_only_with_alt_sizes_is_found(tmp_path):
    root = _copy(tmp_path, "02_layernorm")
    _edit(
        root / "02_layernorm/scenario.toml", "xc = x - mean  #", "xc = x - mean + 1 // (d - 13)  #"
    )
    (error,) = runnable(discover(root)).errors
    assert "forward.code line 2" in error.where and "raises with alt_sizes" in error.problem


def test_a_failure_outside_any_line_names_the_file(tmp_path):
    root = _copy(tmp_path, "02_layernorm")
    path = root / "02_layernorm/scenario.toml"
    _edit(path, "beta = torch.randn(d, generator=g) * 0.1  #", "beta = 0.1  #")  # not a tensor
    (error,) = runnable(discover(root)).errors
    assert error.where == str(path) and "does not run with sizes: AttributeError" in error.problem
