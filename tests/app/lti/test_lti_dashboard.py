"""The LMS on the instructor dashboard (app/panels/lmsgrades.py), for people launched from the
platform of our own (lms_platform.py), signed in with the claims their launch set: a learner
is refused the dashboard and its LMS actions; an instructor's "Read the roster" (and the CLI's
`roster`) reads the course's roster now, SIS ids included, not only at their launch; a score the
LMS answers 401 is recorded failed after one try and listed with the LMS's reason."""

from __future__ import annotations

import pytest

from app import services
from app.classroom import ClassView
from app.classroom.lti import adapters, grades, keys
from app.classroom.lti.__main__ import main
from app.classroom.lti.roster import Rosters
from app.screens import instructor
from app.storage import open_store
from grader.course import Course
from grader.gradebook import Submission, Verdict, score

from ..app_helpers import page_test, texts
from .lms_platform import INSTRUCTOR, ISSUER, launch, login, user_of

DEE = {"user_id": "user-45", "name": "Dee Late", "email": "dee@uni.test", "roles": ["Learner"]}
DEE |= {"status": "Active", "lis_person_sourcedid": "S-45"}  # enrolled after the launch


@pytest.fixture
def classroom(app_env, fake, tool, database, monkeypatch):
    """Run the app in the classroom mode on the tool's database."""
    monkeypatch.setenv("NINJA_MODE", "classroom")
    monkeypatch.setenv("NINJA_DATABASE_URL", database)


def _launched(tool, platform, **changes) -> dict:
    """Launch someone from the platform; return the claims their launch signed them in with."""
    asked = login(tool, platform)
    opened = launch(tool, asked["state"], platform.id_token(asked["nonce"], **changes))
    assert opened.status_code == 303, opened.text
    return user_of(opened)


def _dashboard(claims: dict):
    at = page_test(page="instructor")
    at.user = claims
    return at.run()


def test_a_learner_from_the_lms_is_refused_the_dashboard_and_its_lms_actions(
    classroom, tool, platform, tool_key, monkeypatch
):
    monkeypatch.setattr(keys, "tool_key", lambda secrets=None: tool_key)
    at = _dashboard(_launched(tool, platform))  # Ada, a Learner of the course
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [instructor.LEARNERS]
    labels = [b.label for b in at.button]
    assert "Sync grades" not in labels and "Read the roster" not in labels, labels
    assert "Grades in your LMS" not in texts(at)


def test_read_the_roster_reads_it_now_with_sis_ids(
    classroom, tool, platform, tool_key, database, monkeypatch, tmp_path, capsys
):
    monkeypatch.setattr(keys, "tool_key", lambda secrets=None: tool_key)
    ivy = _launched(tool, platform, role=INSTRUCTOR, sub="teacher-1", name="Ivy")
    platform.members.append(DEE)
    try:
        at = _dashboard(ivy)
        next(b for b in at.button if b.label == "Read the roster").click()
        at = at.run()
        assert not at.exception, at.exception
        assert "Deep Learning 101: roster read, 1 new person(s)." in [i.value for i in at.info]
        store = services.store()
        learners = {p.owner: p for p in ClassView(store).class_learners()}
        assert learners[f"{ISSUER} user-45"].name == "Dee Late", "listed, never seen"
        said = Rosters(store).sis_ids()
        assert (said[f"{ISSUER} user-45"], said[f"{ISSUER} user-43"]) == ("S-45", "S-43")
        pem, kid = tool_key
        secrets = tmp_path / "secrets.toml"
        secrets.write_text(f'[lti]\nkid = "{kid}"\nprivate_key = """\n{pem}"""\n')
        capsys.readouterr()
        assert main(["--url", database, "--secrets", str(secrets), "roster"]) == 0
        assert capsys.readouterr().out == "Deep Learning 101: 0 new person(s)\n", "nobody twice"
    finally:
        platform.members.remove(DEE)
    assert Rosters(open_store(database)).rosters()[0].title == "Deep Learning 101"


def test_a_score_the_lms_answers_401_is_recorded_failed_once_and_shown_with_its_reason(
    classroom, tool, platform, tool_key, monkeypatch
):
    monkeypatch.setattr(keys, "tool_key", lambda secrets=None: tool_key)
    _launched(tool, platform)  # Ada: her link, where her scores go
    ivy = _launched(tool, platform, role=INSTRUCTOR, sub="teacher-1", name="Ivy")
    said = '{"errors": [{"message": "Invalid access token"}]}'  # Canvas's words for a 401
    platform.refuse_scores, posts = (401, said), platform.score_posts
    marks = score(Course(points=(("dh", 2),)), [Submission("ada", "dh", (Verdict("solved"),))])
    try:
        (sent,) = grades.push(services.store().lti, marks, f"{ISSUER} user-42", tool_key)
    finally:
        platform.refuse_scores = None
    assert (sent.status, sent.answer, sent.ok) == (401, "Invalid access token", False)
    assert platform.score_posts - posts == 1, "a 401 is not tried again: it will not change"
    at = _dashboard(ivy)
    refused = next(d.value for d in at.dataframe if "why" in d.value.columns)
    ada = {"learner": f"{ISSUER} user-42", "item": "dh"}
    assert ada | {"status": 401, "why": "Invalid access token"} in refused.to_dict("records")
    (sent,) = grades.push(services.store().lti, marks, f"{ISSUER} user-42", tool_key)
    assert sent.ok, "taken now (the LMS's token fixed)"
    tables = [d.value for d in _dashboard(ivy).dataframe if "why" in d.value.columns]
    listed = [
        {"learner": r["learner"], "item": r["item"]} for t in tables for r in t.to_dict("records")
    ]
    assert ada not in listed, "taken since: no longer listed as refused"


def test_an_lms_that_does_not_answer_a_score_is_given_up_on_not_waited_for(
    classroom, tool, platform, tool_key, monkeypatch
):
    monkeypatch.setattr(adapters, "HTTP_SECONDS", 0.5)
    _launched(tool, platform)
    platform.stall_scores, posts = 2.0, platform.score_posts  # past each call's 0.5 s
    marks = score(Course(points=(("dh", 2),)), [Submission("ada", "dh", (Verdict("solved"),))])
    try:
        (sent,) = grades.push(services.store().lti, marks, f"{ISSUER} user-42", tool_key)
    finally:
        platform.stall_scores = 0.0
    assert (sent.status, sent.ok) == (0, False) and "timed out" in sent.answer, sent
    assert platform.score_posts - posts == 3, "not answered: tried again, three times in all"
