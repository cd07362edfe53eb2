"""The grading policy on the instructor dashboard (app/panels/grading.py): what the course states
(partial credit, late work, regrades, extensions, each item's points and due time), and each
exercise whose proof failed, named above the gradebook's downloads."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from app import services
from app.panels import grading, lmsbook, lmsgrades
from grader.course.policy import Grading
from grader.proving.prover import Finding

from ..app_helpers import page_test, texts

LANGUAGE = Path(__file__).parents[2] / "grader" / "fixtures" / "language" / "exercises"
IVY = {"is_logged_in": True, "iss": "https://id.uni.test", "sub": "ivy-9", "name": "Ivy"}
IVY |= {"email": "ivy@uni.test", "email_verified": True, "iat": int(time.time())}  # issue 34
POLICY = """[points]
dhr = 3
[deadlines]
dhr = 2026-03-01T12:00:00Z
[grading]
partial_credit = "per_gradient"
late = "per_day"
late_percent_per_day = 20
late_floor_percent = 40
regrades = "keep_credit"
"""


@pytest.fixture
def course(app_env, fake, monkeypatch, tmp_path):
    """Serve the language course with a policy of its own to Ivy, its instructor."""
    folder = tmp_path / "a course"
    shutil.copytree(LANGUAGE, folder)
    (folder / "course.toml").write_text(POLICY)
    (folder / "extensions.csv").write_text("learner,item,days\nada,dhr,2\n")
    monkeypatch.setenv("NINJA_EXERCISES_DIR", str(folder))
    monkeypatch.setenv("NINJA_MODE", "classroom")
    monkeypatch.setenv("NINJA_INSTRUCTORS", "ivy@uni.test")
    return folder


def test_the_dashboard_states_the_policy_and_names_a_failed_proof(course, monkeypatch):
    failed = {"dhr": [Finding(f"{course}/solutions/90_language/dhr.py", "fails: `dhr` is wrong")]}
    monkeypatch.setattr(services, "proofs_failed", lambda: failed)
    monkeypatch.setattr(services, "proofs_pending", lambda: {"du"})
    at = page_test(page="instructor")
    at.user = IVY
    at.run()
    assert not at.exception, at.exception
    shown = texts(at)
    assert "Grading policy" in shown and grading.PARTIAL["per_gradient"] in shown
    assert "20% of the credit lost per day begun after the due time, never below 40%" in shown
    assert grading.REGRADES["keep_credit"] in shown and "**Extensions**: 1" in shown
    assert "A book for your LMS" in shown and lmsbook.HOW in shown  # its roster upload (issue 36)
    assert lmsgrades.NONE in shown, "no LMS registered: nothing to sync"
    items = next(d.value for d in at.dataframe if "points" in d.value.columns)
    dhr = items.set_index("item").loc["dhr"]
    assert (dhr["points"], dhr["due"]) == (3, "2026-03-01 12:00 UTC")
    warnings = [w.value for w in at.warning]
    assert any(w.startswith("`dhr`: fails: `dhr` is wrong.") for w in warnings), warnings
    assert any(w.startswith("`du`: not proven yet") for w in warnings), warnings


@pytest.mark.parametrize(
    "grading_, words",
    [
        (Grading(), "flagged late, full credit"),
        (Grading(late="cutoff"), "nothing after the due time"),
        (Grading(late="per_day", late_percent_per_day=12.5), "12.5% of the credit lost per day"),
    ],
)
def test_the_late_rule_in_words(grading_, words):
    assert grading.late_rule(grading_).startswith(words)


def test_the_dashboard_lists_the_scores_an_lms_refused_with_its_reason(course):
    from app.storage.lti import Pushed, Registration

    rows = services.store().lti
    rows.add(Registration("https://lms.uni.test", "tool", "L", "T", "K", ("d",)))
    rows.record([Pushed("https://lms.uni.test 42", "dhr", 3, 3, 1.0, 404, "not a student")])
    at = page_test(page="instructor")
    at.user = IVY
    at.run()
    assert not at.exception, at.exception
    refused = next(d.value for d in at.dataframe if "why" in d.value.columns)
    assert refused.to_dict("records") == [
        {"learner": "https://lms.uni.test 42", "item": "dhr", "status": 404, "why": "not a student"}
    ]
    assert lmsgrades.NO_KEY in texts(at), "no key in the secrets: no Sync button, and why"
