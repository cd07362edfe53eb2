"""The page that lists unreadable exercise files."""

from __future__ import annotations

import shutil
import threading

import pytest

from app import services
from grader.course.exercises import EXERCISES_DIR, SOLUTIONS_DIR

from ..app_helpers import every_page_renders, nav_sections, page_test

pytestmark = pytest.mark.usefixtures("instructor")  # the Problems page is the instructor's


def test_each_unreadable_file_is_listed_with_its_problem(fake, broken_exercises):
    at = page_test(page="problems").run()
    assert not at.exception
    assert len(at.error) == 1
    assert "99_broken.toml" in at.error[0].value and "unknown key" in at.error[0].value


def test_with_no_problems_it_says_so(fake):
    shown = page_test(page="problems").run().success[0].value
    assert shown.startswith("Every exercise file was read")


@pytest.fixture
def broken_scenario(tmp_path, monkeypatch):
    """Copy the exercises with a malformed scenario and a binary exercise file."""
    root = tmp_path / "exercises"
    shutil.copytree(EXERCISES_DIR, root)
    shutil.copytree(SOLUTIONS_DIR, tmp_path / "solutions")  # where course.toml says
    scenario = root / "02_layernorm" / "scenario.toml"
    scenario.write_text('colour = "red"\n' + scenario.read_text())
    (root / "01_mlp" / "98_binary.toml").write_bytes(b"\xff\xfe\x00\x89PNG\x00" * 20)
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(root))
    return root


def test_a_broken_scenario_and_a_binary_file_are_listed_and_the_rest_served(fake, broken_scenario):
    at = page_test(page="problems").run()
    listed = sorted(e.value for e in at.error)
    assert len(listed) == 2
    assert "98_binary.toml" in listed[0] and "is not valid TOML" in listed[0]
    assert "02_layernorm/scenario.toml: colour" in listed[1] and "unknown key" in listed[1]
    ids = [e.id for e in services.catalog().exercises]
    assert "dlogprobs" in ids and "dxhat" not in ids
    page = page_test("dlogprobs").run()
    assert not page.exception and page.title[0].value.startswith("dlogprobs")


def _small_course(root, mlp=("01_dlogprobs.toml", "02_dprobs.toml"), others=("03_attention",)):
    """Write an exercises folder: two lecture exercises and whole copies of other scenarios."""
    (root / "01_mlp").mkdir(parents=True)
    for name in ("scenario.toml", *mlp):
        shutil.copy(EXERCISES_DIR / "01_mlp" / name, root / "01_mlp" / name)
    for slug in others:
        shutil.copytree(EXERCISES_DIR / slug, root / slug)
    return root


def _problems() -> str:
    """Return the problems the Problems page lists, joined."""
    at = page_test(page="problems").run()
    assert not at.exception
    return "\n".join(e.value for e in at.error)


def _duplicate(root) -> str:
    shutil.copy(root / "01_mlp" / "02_dprobs.toml", root / "01_mlp" / "03_dlogprobs.toml")
    return "03_dlogprobs.toml`: id `dlogprobs` is also used by"


def _reserved(root) -> str:
    shutil.copy(root / "01_mlp" / "02_dprobs.toml", root / "01_mlp" / "03_progress.toml")
    return "03_progress.toml`: id `progress` is the address of one of the app's own pages"


def _raising(root) -> str:
    path = root / "03_attention" / "scenario.toml"
    path.write_text(path.read_text().replace("k = x @ Wk  #", "k = x @ Wk.T  #"))
    return "03_attention/scenario.toml:42: forward.code line 2`: raises with sizes"


@pytest.mark.parametrize("breaks", [_duplicate, _reserved, _raising], ids=lambda f: f.__name__)
def test_a_loading_problem_withdraws_only_what_it_affects(fake, tmp_path, monkeypatch, breaks):
    root = _small_course(tmp_path / "exercises")
    expected = breaks(root)
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(root))
    assert expected in _problems()
    catalog = services.catalog()
    ids = [e.id for e in catalog.exercises]
    assert ids[:2] == ["dlogprobs", "dprobs"] and "progress" not in ids
    attention = [e for e in EXERCISES_DIR.glob("03_attention/*.toml") if e.stem[0].isdigit()]
    assert len(ids) == 2 + (0 if breaks is _raising else len(attention))
    urls = [p.url_path for group in nav_sections().values() for p in group]
    assert ("whole_pass_03_attention" in urls) is (breaks is not _raising)
    every_page_renders()


REAL_PROOFS_PENDING = services.proofs_pending  # the autouse fixture replaces it during tests


class _Running:
    """Proofs under way: only `dlogprobs` is proven so far, and soundly."""

    done = threading.Event()

    def proven(self) -> set[str]:
        return {"dlogprobs"}

    def failed(self) -> dict:
        return {}


def test_an_exercise_not_proven_yet_is_held_back_until_it_is(fake, tmp_path, monkeypatch):
    root = _small_course(tmp_path / "exercises", others=())
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(root))
    monkeypatch.setattr(services, "_proofs", lambda *args: _Running())
    monkeypatch.setattr(services, "proofs_pending", REAL_PROOFS_PENDING)
    assert services.proofs_pending() == {"dprobs"}
    assert [e.id for e in services.catalog().exercises] == ["dlogprobs"]
    urls = [p.url_path for group in nav_sections().values() for p in group]
    assert "dlogprobs" in urls and "dprobs" not in urls and "problems" in urls
    problems = page_test(page="problems").run()
    assert "`dprobs`" in problems.info[0].value and not problems.error
    home = page_test(page="home").run()
    assert "1 exercise(s) are being checked" in home.info[0].value
    every_page_renders()
