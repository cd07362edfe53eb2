"""`python -m app.regrade` (issue 25): stored attempts graded again after an exercise was fixed.

A real course folder (a path with spaces) and a real progress database: version 1 of `dxhat`
has a tolerance far too loose, a class is graded on it by `grade-batch` (its main, in this
process: the verdicts and the version recorded as the app records attempts), then the exercise
is fixed and the command grades the stored answers again through the sandbox: each --apply in
a process of its own, as a maintainer runs it, the dry runs and refusals by its main here.
test_regrade_unprivileged.py runs this file again as an ordinary user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from app import regrade
from app.classroom import classbook
from app.classroom.answers import Answers
from app.storage import EDITOR, NOTEBOOK, Attempt, Facts, open_store
from grader import discover

from ...grader.cli_helpers import in_process  # grade-batch's main, here, on the shared sandbox

ROOT = Path(__file__).resolve().parents[3]
COURSE_ID = "ln-regrade"
LOOSE = 'target = "xhat"\natol = 1e-2\nrtol = 1e-2\n'  # version 1: a slip of 1% passes
ANSWERS = {  # learner: their answer to dxhat
    "ada": "dxhat = gamma * dy * 1.003\n",  # off by 0.3%: solved at version 1 only
    "grace": "dxhat = gamma * dy\n",  # right at both versions
    "alan": "dxhat = dy.clone()\n",  # wrong at both (a listed mistake)
}


def _run(module: str, *args, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `python -m module args` in a process of its own, as a user would."""
    clean = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env={**clean, **(env or {})},
    )  # fmt: skip


@pytest.fixture
def course(tmp_path) -> Path:
    """Return a one-scenario course folder (LayerNorm, with its answers) whose dxhat is the
    loose version 1."""
    folder = tmp_path / "a course"
    shutil.copytree(ROOT / "exercises" / "02_layernorm", folder / "02_layernorm")
    shutil.copytree(ROOT / "solutions" / "02_layernorm", folder / "solutions" / "02_layernorm")
    (folder / "course.toml").write_text(f'id = "{COURSE_ID}"\ntitle = "LayerNorm"\n')
    _dxhat(folder).write_text(_dxhat(folder).read_text().replace('target = "xhat"\n', LOOSE))
    return folder


def _dxhat(course: Path) -> Path:
    return course / "02_layernorm" / "01_dxhat.toml"


def _fix(course: Path) -> None:
    """Fix dxhat: back to the default tolerance (a new version of the exercise)."""
    _dxhat(course).write_text(_dxhat(course).read_text().replace(LOOSE, 'target = "xhat"\n'))


@pytest.fixture
def url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'var data' / 'progress.sqlite3'}"


def _graded_at_version_1(tmp_path: Path, course: Path) -> dict:
    """Grade the class on version 1 with grade-batch; return {learner: its dxhat row}."""
    for learner, code in ANSWERS.items():
        (tmp_path / "class" / learner).mkdir(parents=True)
        (tmp_path / "class" / learner / "dxhat.py").write_text(code)
    out = tmp_path / "book"
    done = in_process("grade-batch", tmp_path / "class", "--exercises", course, "--out", out)
    assert done.returncode == 0, done.stdout + done.stderr
    book = json.loads(out.with_suffix(".json").read_text())
    return {entry["learner"]: entry["items"][0] for entry in book["learners"]}


def _record(url: str, rows: dict) -> None:
    """Record each learner's verdict as the app records an attempt typed in the editor."""
    store = open_store(url, COURSE_ID)
    for at, (learner, row) in enumerate(sorted(rows.items()), start=1):
        facts = Facts(True, "", "", row["status"])
        attempt = Attempt(
            "dxhat", ANSWERS[learner], row["solved"], row["summary"], 0.1, 30.0, "default",
            1_700_000_000.0 + at, facts, row["version"],
        )  # fmt: skip
        store.work.record_attempt(store.learners.add_profile(learner, owner="browser"), attempt)


def _attempts(url: str) -> dict[str, list[Attempt]]:
    store = open_store(url, COURSE_ID)
    return {p.name: store.work.attempts(p) for p in store.learners.profiles()}


def _regrade(course: Path, url: str, tmp_path: Path, *flags) -> subprocess.CompletedProcess:
    env = {"NINJA_DATA_DIR": str(tmp_path / "var data")}
    return _run("app.regrade", "--exercises", course, "--database", url, *flags, env=env)


@pytest.fixture
def here(tmp_path, monkeypatch, capsys):
    """Return how to run the command's main in this process, as `_regrade` runs it in a process
    of its own (the same data folder, from the repository's root): it grades on the process-wide
    sandbox, whose limits it sets to the app's for the run (put back after)."""
    from grader.sandbox import default_sandbox

    monkeypatch.setenv("NINJA_DATA_DIR", str(tmp_path / "var data"))
    monkeypatch.chdir(ROOT)

    def run(course: Path, url: str, *flags) -> subprocess.CompletedProcess:
        limits = default_sandbox().limits
        capsys.readouterr()
        try:
            code = regrade.main(["--exercises", str(course), "--database", url, *flags])
        finally:
            default_sandbox().limits = limits
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["app.regrade", *flags], code, out, err)

    return run


@pytest.mark.slow
def test_a_fix_is_regraded_shown_then_recorded_beside_the_old_verdicts(tmp_path, course, url, here):
    before = _graded_at_version_1(tmp_path, course)
    assert {k: r["status"] for k, r in before.items()} == {
        "ada": "solved", "grace": "solved", "alan": "not_solved",
    }  # fmt: skip
    _record(url, before)
    _fix(course)
    fixed = discover(course).get("dxhat").version
    assert fixed != before["ada"]["version"]

    dry = here(course, url, "--json")  # the dry run, in this process
    assert dry.returncode == 0, dry.stdout + dry.stderr
    found = json.loads(dry.stdout)
    assert (found["course"], found["applied"], found["regraded"]) == (COURSE_ID, False, 3)
    rows = {a["learner"]: a for a in found["attempts"]}
    assert {k: (r["old_status"], r["new_status"]) for k, r in rows.items()} == {
        "ada": ("solved", "not_solved"),
        "grace": ("solved", "solved"),
        "alan": ("not_solved", "not_solved"),
    }
    assert {(r["old_version"], r["new_version"]) for r in rows.values()} == {
        (before["ada"]["version"], fixed)
    }
    assert found["changed"] == 1 and not any(r["recorded"] for r in rows.values())
    assert {k: len(v) for k, v in _attempts(url).items()} == {"ada": 1, "alan": 1, "grace": 1}

    applied = _regrade(course, url, tmp_path, "--apply")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "solved -> not_solved" in applied.stdout and "3 new verdicts recorded" in applied.stdout
    stored = _attempts(url)
    ada = stored["ada"]
    assert [(a.solved, a.version, a.origin) for a in ada] == [
        (True, before["ada"]["version"], EDITOR),  # the old verdict, kept
        (False, fixed, regrade.REGRADE),
    ]
    assert ada[1].created_at == ada[0].created_at and ada[1].code == ada[0].code
    assert ada[1].time_spent == 0.0 and ada[1].facts.status == "not_solved"
    assert [a.solved for a in stored["grace"]] == [True, True]

    again = here(course, url, "--json")
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads(again.stdout)["attempts"] == []
    _the_books_tell_the_truth(tmp_path, course, url, before["ada"]["version"], fixed)


def _the_books_tell_the_truth(tmp_path: Path, course: Path, url: str, old: str, new: str) -> None:
    """The dashboard's book and grade-batch's (given its earlier book) both use the regraded
    verdict, mark the changed cell (was / now, with versions) and keep the history; with
    `regrades = "keep_credit"` the dashboard keeps ada's credit, saying so (issue 35)."""
    ada = _dashboard_marks(url, course)["ada"]
    assert (ada["status"], ada["points"], ada["regraded"]) == ("not_solved", 0, True)
    assert (ada["was_status"], ada["was_version"], ada["version"]) == ("solved", old, new)
    assert _dashboard_marks(url, course)["grace"]["regraded"] is False, "unchanged: no mark"
    out, earlier = tmp_path / "after the fix", tmp_path / "book.json"
    args = ("--exercises", course, "--out", out, "--previous", earlier)
    done = in_process("grade-batch", tmp_path / "class", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    book = {e["learner"]: e for e in json.loads(out.with_suffix(".json").read_text())["learners"]}
    (mark,) = book["ada"]["marks"]
    assert (mark["status"], mark["was_status"], mark["points"]) == ("not_solved", "solved", 0)
    assert [(v["status"], v["version"]) for v in book["ada"]["items"][0]["history"]] == [
        ("solved", old)
    ]
    wide = out.with_suffix(".wide.csv").read_text(encoding="utf-8-sig")
    assert f"dxhat: solved@{old} -> not_solved@{new}" in wide
    toml = course / "course.toml"
    toml.write_text(toml.read_text() + '[grading]\nregrades = "keep_credit"\n')
    kept = _dashboard_marks(url, course)["ada"]
    assert (kept["status"], kept["points"], kept["credit_kept"]) == ("not_solved", 1, True)


def _dashboard_marks(url: str, course: Path) -> dict:
    """Return {learner: their dxhat mark} of the dashboard's gradebook of the store."""
    store = open_store(url, COURSE_ID)
    names = {p.id: p.name for p in store.learners.profiles()}
    files = classbook.gradebook_files(Answers(store).class_answers(), names, discover(course))
    book = json.loads(files["json"])
    return {e["learner"]: e["marks"][0] for e in book["learners"]}


def test_only_stale_attempts_typed_in_the_editor_are_regraded(tmp_path, course, url):
    catalog = discover(course)
    current = catalog.get("dxhat").version
    store = open_store(url, COURSE_ID)
    ada = store.learners.add_profile("ada")
    for version, origin in (("old", EDITOR), (current, EDITOR), ("old", NOTEBOOK), ("", EDITOR)):
        code = f"dxhat = gamma * dy  # {version} {origin}\n"
        attempt = Attempt("dxhat", code, True, "", 0.1, 1.0, "default", 5.0, Facts(), version)
        store.work.record_attempt(ada, replace(attempt, origin=origin))
    chosen = {e.id: e for e in catalog.exercises}
    stale = regrade.stale_attempts(store, chosen, every=False)
    assert [(s.attempt.version, s.attempt.origin) for s in stale] == [("old", EDITOR), ("", EDITOR)]
    every = regrade.stale_attempts(store, chosen, every=True)
    assert [s.attempt.version for s in every] == ["old", current, ""]
    done = replace(stale[0].attempt, version=current, origin=regrade.REGRADE)
    store.work.record_attempt(ada, done)  # the first one, re-graded already
    assert [s.attempt.version for s in regrade.stale_attempts(store, chosen, False)] == [""]


def test_bad_input_is_refused_with_one_line_and_nothing_made(tmp_path, course, url, capsys):
    missing = tmp_path / "var data" / "progress.sqlite3"
    code = regrade.main(["--exercises", str(course), "--database", url])
    assert code == regrade.BAD_INPUT and not missing.exists()
    assert "no progress database at" in capsys.readouterr().err
    open_store(url, COURSE_ID)
    code = regrade.main(["--exercises", str(course), "--database", url, "--exercise", "dxhta"])
    err = capsys.readouterr().err
    assert code == regrade.BAD_INPUT and "no exercise dxhta" in err and "dxhat" in err
    (course / "02_layernorm" / "09_broken.toml").write_text('title = "x"\nfavourite = 1\n')
    code = regrade.main(["--exercises", str(course), "--database", url])
    err = capsys.readouterr().err
    assert code == regrade.BAD_INPUT and "09_broken.toml" in err and "--grade-sound" in err
    code = regrade.main(["--exercises", str(course), "--database", url, "--grade-sound"])
    assert code == regrade.DONE and "no attempt to re-grade" in capsys.readouterr().out


@pytest.mark.slow
def test_an_exercise_that_is_not_sound_is_never_regraded(tmp_path, course, url, here):
    _fix(course)
    store = open_store(url, COURSE_ID)
    attempt = Attempt("dxhat", ANSWERS["grace"], True, "", 0.1, 1.0, "default", 5.0, Facts())
    store.work.record_attempt(
        store.learners.add_profile("grace"), replace(attempt, version="earlier")
    )
    answer = course / "solutions" / "02_layernorm" / "dxhat.py"
    answer.write_text("dxhat = dy * 2\n")  # a "fix" that is itself wrong: its proof fails
    refused = here(course, url, "--apply")
    assert refused.returncode == regrade.BAD_INPUT and "not sound" in refused.stderr
    assert f"{answer}: fails" in refused.stderr and refused.stdout == ""
    sound_only = _regrade(course, url, tmp_path, "--apply", "--grade-sound", "--json")
    assert sound_only.returncode == regrade.DONE, sound_only.stdout + sound_only.stderr
    (row,) = json.loads(sound_only.stdout)["attempts"]
    assert row["skipped"].startswith("its exercise is not sound") and not row["recorded"]
    assert len(_attempts(url)["grace"]) == 1, "nothing recorded"
