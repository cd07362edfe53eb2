"""LTI 1.3 launch (app/classroom/lti/, issue 36): a platform of our own on loopback
(tests/app/lti/lms_platform.py: its keys served as a JWKS) starts the login, signs an id_token
for the tool's nonce, and posts the launch; the tool checks it with its library, keeps state and
nonces in the session's PostgreSQL, and signs the person in (Streamlit's user cookie: issuer and
subject, LTI roles). Each bad launch is refused with a log line: wrong kid, expired, wrong
audience, unknown deployment, forged signature, missing state cookie, replayed, an unknown
platform."""

from __future__ import annotations

import logging
import time
from types import SimpleNamespace

import pytest

from app.classroom import ClassView, sessions
from app.classroom.lti import grades, keys
from app.classroom.lti.roster import Rosters
from app.classroom.people import INSTRUCTOR, LEARNER, Trust, person
from app.storage import Attempt, Facts, open_store
from grader import discover
from grader.course import Course
from grader.course.policy import Grading
from grader.gradebook import Submission, Verdict, score

from .lms_platform import INSTRUCTOR as LTI_INSTRUCTOR
from .lms_platform import ISSUER, launch, login, user_of

PASS = "whole_pass:01_mlp"


@pytest.mark.parametrize(("role", "expected"), [(LTI_INSTRUCTOR, INSTRUCTOR), (None, LEARNER)])
def test_a_launch_signs_the_person_in_by_issuer_and_subject(tool, platform, role, expected):
    asked = login(tool, platform)
    assert asked["redirect_uri"] == "http://testserver/lti/launch" and asked["nonce"]
    roles = {"role": role} if role else {}
    opened = launch(tool, asked["state"], platform.id_token(asked["nonce"], **roles))
    assert opened.status_code == 303 and opened.headers["location"] == "/", opened.text
    claims = user_of(opened)
    assert (claims["iss"], claims["sub"], claims["provider"]) == (ISSUER, "user-42", "lti")
    who = person(claims, Trust(issuer="https://id.uni.test"))  # the school's own sign-in's
    assert (who.identity, who.role) == (f"{ISSUER} user-42", expected)
    assert sessions.seen(claims, who.identity).issued <= time.time(), "a sign-in the server keeps"
    assert who.groups == ("Deep Learning 101",) and who.email == "ada@uni.test"


def test_a_replayed_launch_is_refused(tool, platform, caplog):
    asked = login(tool, platform)
    token = platform.id_token(asked["nonce"])
    assert launch(tool, asked["state"], token).status_code == 303
    with caplog.at_level(logging.WARNING, "app.lti"):
        again = launch(tool, asked["state"], token)
    assert again.status_code == 400 and "_streamlit_user" not in again.cookies
    assert "LTI launch refused: Invalid Nonce." in caplog.text


BAD = {
    "wrong kid": ({"sign_with": "stranger"}, "Unable to find public key"),
    "forged signature": ({"sign_with": "forger"}, "Signature verification failed"),
    "expired": ({"exp": 1_000_000_000}, "Signature has expired"),
    "wrong audience": ({"aud": "someone-else"}, "[client_id=someone-else] not found"),
    "unknown deployment": (
        {"https://purl.imsglobal.org/spec/lti/claim/deployment_id": "d-9"},
        'The deployment ID "d-9" is not recognised',
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_id_token_is_refused_with_its_reason(tool, platform, caplog, case):
    changes, reason = BAD[case]
    if "sign_with" in changes:
        changes = {"sign_with": getattr(platform, changes["sign_with"])}
    asked = login(tool, platform)
    with caplog.at_level(logging.WARNING, "app.lti"):
        refused = launch(tool, asked["state"], platform.id_token(asked["nonce"], **changes))
    assert refused.status_code == 400 and "_streamlit_user" not in refused.cookies
    assert reason in refused.text and "LTI launch refused: " in caplog.text
    assert reason in caplog.records[-1].getMessage()


def test_a_launch_without_its_state_cookie_is_refused(tool, platform, caplog):
    asked = login(tool, platform)
    tool.cookies.clear()  # another browser: the state cookie is not there
    with caplog.at_level(logging.WARNING, "app.lti"):
        refused = launch(tool, asked["state"], platform.id_token(asked["nonce"]))
    assert refused.status_code == 400 and "LTI launch refused: State not found" in caplog.text


def test_a_launch_inside_a_frame_says_to_open_a_new_window(tool, platform, caplog):
    asked = login(tool, platform)
    framed = {"Sec-Fetch-Dest": "iframe"}  # what a browser sends for a frame's navigation
    form = {"id_token": platform.id_token(asked["nonce"]), "state": asked["state"]}
    with caplog.at_level(logging.WARNING, "app.lti"):
        refused = tool.post("/lti/launch", data=form, headers=framed, follow_redirects=False)
    assert refused.status_code == 400 and "Open the link in a new tab" in refused.text
    assert "LTI launch refused: opened inside a frame" in caplog.text
    assert launch(tool, asked["state"], form["id_token"]).status_code == 303, "nonce kept"


def test_a_login_from_an_unknown_platform_is_refused(tool, platform, caplog):
    params = platform.login_params() | {"iss": "https://elsewhere.test"}
    with caplog.at_level(logging.WARNING, "app.lti"):
        refused = tool.get("/lti/login", params=params, follow_redirects=False)
    assert refused.status_code == 400 and "LTI login refused" in caplog.text


def test_the_tool_publishes_its_configuration(tool):
    config = tool.get("/lti/config.json").json()
    assert config["oidc_initiation_url"] == "http://testserver/lti/login"
    assert config["target_link_uri"] == "http://testserver/lti/launch"
    assert tool.get("/lti/jwks").json() == {"keys": []}, "no key in the secrets: none published"


def _marks(right: int) -> list:
    """Return the one scoring function's marks of a learner: dh solved (2 points), the whole
    pass with `right` of 10 gradients right (4 points, partial credit per gradient)."""
    course = Course(points=(("dh", 2), (PASS, 4)), grading=Grading(partial_credit="per_gradient"))
    answers = [
        Submission("ada", "dh", (Verdict("solved"),)),
        Submission("ada", PASS, (Verdict("not_solved", right=right, parts=10),)),
    ]
    return score(course, answers)


def test_login_launch_score_reaches_the_platform_with_its_maximum(
    tool, platform, tool_key, database
):
    asked = login(tool, platform)
    assert launch(tool, asked["state"], platform.id_token(asked["nonce"])).status_code == 303
    rows = open_store(database, "default").lti
    sent = grades.push(rows, _marks(right=7), f"{ISSUER} user-42", tool_key)
    assert [(p.item, p.points, p.out_of, p.status) for p in sent] == [
        ("dh", 2, 2, 200),
        (PASS, 2.8, 4, 200),
    ]
    by_item = {i["resourceId"]: i for i in platform.lineitems}
    assert by_item[PASS]["scoreMaximum"] == 4 and by_item[PASS]["resourceLinkId"] == "link-1"
    (score_,) = platform.scores[by_item[PASS]["id"]]
    assert (score_["scoreGiven"], score_["scoreMaximum"], score_["userId"]) == (2.8, 4, "user-42")
    grades.push(rows, _marks(right=10), f"{ISSUER} user-42", tool_key)  # a better answer
    assert len(platform.lineitems) == 2, "each line item found again, never created twice"
    assert platform.scores[by_item[PASS]["id"]][-1]["scoreGiven"] == 4


def test_a_refused_score_is_recorded_with_the_platforms_reason(tool, platform, tool_key, database):
    asked = login(tool, platform)
    assert launch(tool, asked["state"], platform.id_token(asked["nonce"])).status_code == 303
    rows = open_store(database, "default").lti
    platform.refuse_scores, posts = (404, "not a student"), platform.score_posts
    try:
        sent = grades.push(rows, _marks(right=7)[:1], f"{ISSUER} user-42", tool_key)
    finally:
        platform.refuse_scores = None
    assert [(p.item, p.status, p.answer, p.ok) for p in sent] == [
        ("dh", 404, "not a student", False)
    ]
    assert platform.score_posts - posts == 1, "a 4xx is not tried again: it will not change"
    assert rows.pushes(limit=1)[0].answer == "not a student", "kept for the dashboard"


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ('{"errors": [{"message": "the course is not published"}]}', "the course is not published"),
        ('{"error": "invalid_scope", "error_description": "no score scope"}', "no score scope"),
        ("User not found in course", "User not found in course"),
    ],
)
def test_an_lms_refusal_is_told_in_its_words(body, said):
    assert grades.words(body) == said


@pytest.mark.parametrize(("refusals", "expected"), [(1, (200, "")), (3, (503, "down for a bit"))])
def test_a_score_the_lms_cannot_take_now_is_tried_again(
    tool, platform, tool_key, database, monkeypatch, refusals, expected
):
    monkeypatch.setattr(grades, "RETRIES", (0.01, 0.01))
    asked = login(tool, platform)
    assert launch(tool, asked["state"], platform.id_token(asked["nonce"])).status_code == 303
    rows = open_store(database, "default").lti
    platform.refuse_scores, platform.refusals_left = (503, "down for a bit"), refusals
    posts = platform.score_posts
    try:
        (sent,) = grades.push(rows, _marks(right=7)[:1], f"{ISSUER} user-42", tool_key)
    finally:
        platform.refuse_scores, platform.refusals_left = None, -1
    assert (sent.status, sent.answer) == expected
    assert platform.score_posts - posts == min(refusals + 1, 3), "at most three tries"


def test_sync_sends_every_launched_learners_recorded_scores(tool, platform, tool_key, database):
    asked = login(tool, platform)
    assert launch(tool, asked["state"], platform.id_token(asked["nonce"])).status_code == 303
    store = open_store(database, "default")
    profile = store.learners.add_profile("Ada", owner=f"{ISSUER} user-42")
    solved = Facts(ran=True, status="solved")
    store.work.record_attempt(
        profile, Attempt("dlogprobs", "x", True, "ok", 0, 0, "d", 1.0, solved)
    )
    before = len(platform.scores)
    sent = grades.sync(store, discover(), tool_key)
    assert [(p.identity, p.item, p.points, p.ok) for p in sent] == [
        (f"{ISSUER} user-42", "dlogprobs", 1, True)
    ]
    assert len(platform.scores) == before + 1, "dlogprobs' line item, made for it"


def test_an_instructors_launch_reads_the_roster_into_the_class(
    tool, platform, tool_key, database, monkeypatch
):
    monkeypatch.setattr(keys, "tool_key", lambda: tool_key)  # the secrets' [lti] key
    asked = login(tool, platform)
    token = platform.id_token(asked["nonce"], role=LTI_INSTRUCTOR, sub="teacher-1")
    assert launch(tool, asked["state"], token).status_code == 303
    store = open_store(database, "default")
    learners = {p.owner: p for p in ClassView(store).class_learners()}
    bob = learners[f"{ISSUER} user-43"]
    assert (bob.name, bob.email, bob.last_seen) == ("Bob Never", "bob@uni.test", 0)
    assert f"{ISSUER} user-44" not in learners, "an inactive member is left out"
    assert f"{ISSUER} teacher-1" not in learners, "the instructor is not a learner"
    asked = login(tool, platform)  # the roster read again: nobody twice
    token = platform.id_token(asked["nonce"], role=LTI_INSTRUCTOR, sub="teacher-1")
    assert launch(tool, asked["state"], token).status_code == 303
    assert len(ClassView(store).class_learners()) == len(learners)


def test_a_launch_keeps_the_persons_sis_id(tool, platform, database):
    asked = login(tool, platform)
    lis = {"https://purl.imsglobal.org/spec/lti/claim/lis": {"person_sourcedid": " S-42 "}}
    assert launch(tool, asked["state"], platform.id_token(asked["nonce"], **lis)).status_code == 303
    assert Rosters(open_store(database)).sis_ids()[f"{ISSUER} user-42"] == "S-42", "for the books"


def test_streamlits_private_sign_in_call_is_where_the_launch_expects_it():
    """Streamlit has no public call that sets its user cookie; the launch uses its private
    `_set_auth_cookie` (routes.sign_in). If a Streamlit upgrade moves or changes it, this fails
    first: change routes.sign_in (docs/lms.md, "Streamlit's sign-in cookie")."""
    import asyncio
    import inspect
    from http.cookies import SimpleCookie

    from starlette.responses import Response

    from app.classroom.lti import routes

    private = routes._set_auth_cookie
    assert list(inspect.signature(private).parameters) == ["response", "user_info", "tokens"]
    claims = {"iss": ISSUER, "sub": "user-42", "provider": "lti", "is_logged_in": True}
    response = Response()
    asyncio.run(routes.sign_in(response, claims))
    jar = SimpleCookie()
    for header in response.headers.getlist("set-cookie"):
        jar.load(header)
    cookies = {k: v.value for k, v in jar.items()}
    assert user_of(SimpleNamespace(cookies=cookies)) == claims, "st.user reads what was set"
