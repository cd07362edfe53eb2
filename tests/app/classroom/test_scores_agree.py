"""One class, one policy, the same numbers from every route that scores it (issue 35): grade-batch
(the answers as files, their times in a manifest) and the instructor dashboard (the answers
graded and recorded as the app records attempts, at their times). Each route grades for itself;
all call the one scoring function; the LMS push (issue 36) sends the same marks to a platform
of our own, whose score store must hold them.

The class, on the language course (points: the pass 4, dab 2, dhr 2, du 1; due DUE; partial
credit per gradient; 10% a day late, never below 50%; bob has three more days for the pass):

    ada  the pass with dr_2 wrong (7 of 10 gradients), on time       4 * 0.7        = 2.8
         dab with db wrong (1 of 2 answers), on time                 2 * 0.5        = 1
         dhr right, one second late (a day begun)                    2 * 0.9        = 1.8
    bob  the pass right, two days late, within his extension         4
         dhr right, exactly at the due time                          2
    cy   dhr wrong (one gradient: all or nothing)                    0
         dab right, thirty days late (the floor)                     2 * 0.5        = 1
         du with autograd                                            0
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from jwcrypto.jwk import JWK

from app.classroom import classbook
from app.classroom.answers import Answers, gradebook_facts
from app.classroom.lti import grades
from app.storage import Attempt, facts_of, open_store
from app.storage.lti import Link
from grader import Grader, discover
from grader.gradebook import LmsRoster, recorded_marks

from ...grader.cli_helpers import in_process  # grade-batch's main, here, on the shared sandbox
from ..lti.lms_platform import CLIENT, ISSUER, Platform

pytestmark = pytest.mark.slow  # grades a small class twice, once per route

LANGUAGE = Path(__file__).parents[2] / "grader" / "fixtures" / "language" / "exercises"
PASS = "whole_pass:90_language"
DUE = 1_772_366_400.0  # 2026-03-01T12:00:00Z
DAY = 86400.0
COURSE = """id = "routes"
[points]
"whole_pass:90_language" = 4
dab = 2
dhr = 2
[deadlines]
"whole_pass:90_language" = 2026-03-01T12:00:00Z
dab = 2026-03-01T12:00:00Z
dhr = 2026-03-01T12:00:00Z
[grading]
partial_credit = "per_gradient"
late = "per_day"
late_percent_per_day = 10
late_floor_percent = 50
"""
MAXIMA = {PASS: 4, "dab": 2, "dhr": 2, "du": 1}  # each line item's maximum: [points]
EXPECTED = {
    "ada": {PASS: 2.8, "dab": 1, "dhr": 1.8},
    "bob": {PASS: 4, "dhr": 2},
    "cy": {"dab": 1, "dhr": 0, "du": 0},
}


@dataclass(frozen=True)
class Klass:
    """A course folder and its class: each learner's answer to each item, and when it came."""

    course: Path
    answers: dict[tuple[str, str], str]
    times: dict[tuple[str, str], float]


@pytest.fixture(scope="module")
def klass(tmp_path_factory) -> Klass:
    course = tmp_path_factory.mktemp("routes") / "a course"
    shutil.copytree(LANGUAGE, course)
    (course / "course.toml").write_text(COURSE)
    (course / "extensions.csv").write_text(f"learner,item,days\nbob,{PASS},3\n")
    right = {p.stem: p.read_text() for p in (course / "solutions" / "90_language").glob("*.py")}
    broken_pass = right["whole_pass"].replace("dr_2 = dr + (", "dr_2 = (")
    wrong_db = right["dab"].replace("+ du\n", "\n")
    assert broken_pass != right["whole_pass"] and wrong_db != right["dab"]
    answers = {
        ("ada", PASS): (broken_pass, DUE - 3600),
        ("ada", "dab"): (wrong_db, DUE - 3600),
        ("ada", "dhr"): (right["dhr"], DUE + 1),
        ("bob", PASS): (right["whole_pass"], DUE + 2 * DAY),
        ("bob", "dhr"): (right["dhr"], DUE),
        ("cy", "dhr"): ("dhr = dy * 2\n", DUE - 3600),
        ("cy", "dab"): (right["dab"], DUE + 30 * DAY),
        ("cy", "du"): ("u.backward(dhr_1)\ndu = u.grad\n", DUE - 3600),
    }
    codes = {k: code for k, (code, _) in answers.items()}
    return Klass(course, codes, {k: at for k, (_, at) in answers.items()})


def by_grade_batch(klass: Klass, work: Path) -> dict:
    """Score the class with grade-batch: a folder per learner, the times in a manifest."""
    lines = ["learner,item,submitted_at"]
    for (learner, item), code in klass.answers.items():
        name = "whole_pass" if item == PASS else item
        (work / "class" / learner).mkdir(parents=True, exist_ok=True)
        (work / "class" / learner / f"{name}.py").write_text(code)
        lines.append(f"{learner},{item},{klass.times[learner, item]}")
    (work / "times.csv").write_text("\n".join(lines) + "\n")
    flags = ("--exercises", klass.course, "--manifest", work / "times.csv", "--out", work / "b")
    flags += ("--format", "canvas", "--roster", _canvas_roster(work))
    # --traceback: a grader fault (exit 3, seen once under load) then says where in the message
    done = in_process("grade-batch", work / "class", *flags, "--traceback")
    assert done.returncode == 0, done.stdout + done.stderr
    scores = _scores(json.loads((work / "b.json").read_text()))
    assert _canvas_scores((work / "b.canvas.csv").read_bytes()) == scores
    assert scores.pop("dee") == {}, "the roster's student who sent nothing is in the book too"
    return scores


_RECORDED: dict[Path, tuple] = {}  # the app's records of a class: the dashboard's and the push's


def recorded(klass: Klass, work: Path):
    """Return the store, each profile's learner and the course of the class's answers graded
    as the app grades them and recorded as attempts at their times, once per class: the
    dashboard and the LMS push both read what the app recorded."""
    if klass.course not in _RECORDED:
        _RECORDED[klass.course] = _record(klass, work)
    return _RECORDED[klass.course]


def _record(klass: Klass, work: Path):
    """Grade and record the class's answers (recorded's work)."""
    catalog = discover(klass.course)
    grader = Grader(_dataset(), catalog, _sandbox())
    store = open_store(f"sqlite:///{work / 'progress.sqlite3'}", "routes")
    profiles = {name: store.learners.add_profile(name) for name in sorted(EXPECTED)}
    for (learner, item), code in klass.answers.items():
        if item == PASS:
            result, version = grader.grade_pass(code, "90_language"), ""
            summary = result.message
        else:
            result, version = grader.grade(item, code), catalog.get(item).version
            summary = result.summary_with_hint()
        attempt = Attempt(
            item, code, result.solved, summary, 0.0, 0.0, "default",
            klass.times[learner, item], facts_of(result), version,
        )  # fmt: skip
        store.work.record_attempt(profiles[learner], attempt)
    return store, {p.id: name for name, p in profiles.items()}, catalog


def by_dashboard(klass: Klass, work: Path) -> dict:
    """Score the class with the dashboard's gradebook: the book of the recorded attempts."""
    store, names, catalog = recorded(klass, work)
    answers = Answers(store).class_answers()
    roster = LmsRoster.read(_canvas_roster(work), "canvas")
    files = classbook.gradebook_files(answers, names, catalog, lms=roster)
    scores = _scores(json.loads(files["json"]))
    assert _canvas_scores(files["canvas.csv"]) == scores | {"dee": {}}, "the LMS's download"
    marks = recorded_marks(gradebook_facts(answers, names), catalog)  # what a push would send
    assert scores == _by_learner(marks), "the book's marks are the scoring function's"
    return scores


def by_lms(klass: Klass, work: Path) -> dict:
    """Score the class as the LMS push sends it: the recorded attempts' marks, each learner's
    sent (app/classroom/lti/grades.py) to a platform of our own on loopback, read back from
    its score store."""
    store, names, catalog = recorded(klass, work)
    marks = recorded_marks(gradebook_facts(Answers(store).class_answers(), names), catalog)
    platform, tool = Platform(), JWK.generate(kty="RSA", size=2048, kid="tool-1")
    platform.tool_key = JWK.from_json(tool.export_public())
    key = (tool.export_to_pem(private_key=True, password=None).decode(), "tool-1")
    try:
        store.lti.add(platform.registration())
        for learner in EXPECTED:
            link = Link(learner, "link-1", ISSUER, CLIENT, learner, platform.lineitems_url)
            store.lti.link(link)  # as a launch from the platform keeps it
            sent = grades.push(store.lti, [m for m in marks if m.learner == learner], learner, key)
            assert all(p.ok for p in sent), sent
        return _platform_scores(platform)
    finally:
        platform.close()


def _platform_scores(platform: Platform) -> dict:
    """Return {learner: {item: points}} of the platform's score store (the latest per item)."""
    items = {li["id"]: li["resourceId"] for li in platform.lineitems}
    found: dict[str, dict] = {}
    for lineitem, scores in platform.scores.items():
        for s in scores:
            found.setdefault(s["userId"], {})[items[lineitem]] = round(s["scoreGiven"], 6)
    assert {li["resourceId"]: li["scoreMaximum"] for li in platform.lineitems} == MAXIMA
    return found


ROUTES: dict[str, Callable[[Klass, Path], dict]] = {
    "grade-batch": by_grade_batch,
    "dashboard": by_dashboard,
    "lms": by_lms,  # the LMS push (issue 36)
}


def test_every_route_gives_the_same_scores(klass, tmp_path):
    found = {}
    for name, route in ROUTES.items():
        (tmp_path / name).mkdir()
        found[name] = route(klass, tmp_path / name)
    for name, scores in found.items():
        assert scores == EXPECTED, name


def _canvas_roster(work: Path) -> Path:
    """Write a Canvas roster export of the class and dee, who sent nothing; return its path."""
    lines = ["Student,ID,SIS User ID,SIS Login ID,Section"]
    lines += [f"{n.title()},{i},S{i},{n},A" for i, n in enumerate((*EXPECTED, "dee"), 1)]
    (work / "roster.csv").write_text("\n".join(lines) + "\n")
    return work / "roster.csv"


def _canvas_scores(raw: bytes) -> dict:
    """Return {login id: {item: points}} of a Canvas import file (a blank cell: nothing)."""
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0]["Student"] == "Points Possible"
    fixed = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
    return {
        r["SIS Login ID"]: {k: float(v) for k, v in r.items() if k not in fixed and v}
        for r in rows[1:]
    }


def _scores(book: dict) -> dict:
    """Return {learner: {item: points}} of a book, checking that each total is the sum."""
    scores = {}
    for learner in book["learners"]:
        marks = {m["item"]: round(m["points"], 6) for m in learner["marks"]}
        assert learner["points"] == pytest.approx(sum(marks.values())), learner["learner"]
        scores[learner["learner"]] = marks
    return scores


def _by_learner(marks) -> dict:
    """Return {learner: {item: points}} of the scoring function's marks."""
    found: dict[str, dict] = {}
    for m in marks:
        found.setdefault(m.learner, {})[m.item] = round(m.points, 6)
    return found


def _dataset():
    from data import default_dataset

    return default_dataset()


def _sandbox():
    from grader.sandbox import default_sandbox

    return default_sandbox()
