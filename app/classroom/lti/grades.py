"""Scores sent to the LMS (LTI Assignment and Grade Services), through the maintained library:
for each item a person has a mark for, the line item of their launch's link and that item is
found (never blindly created twice), else created with the item's points as its maximum, and
the score put to it. The marks are the one scoring function's (grader/gradebook/policy.py,
through recorded_marks), so the book and the LMS agree. Each score sent is recorded with the
LMS's answer (store.lti.pushes).

    >>> sent = push(store.lti, marks, identity, key)   # [Pushed(...), ...]
    >>> sent = sync(store, catalog, key)               # everyone launched ("Sync grades")
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import requests
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.registration import Registration as LibraryRegistration
from pylti1p3.service_connector import ServiceConnector

from app.classroom.answers import Answers, gradebook_facts
from app.classroom.classview import ClassView
from app.classroom.lti import adapters
from app.storage.lti import Link, Lti, Pushed, Registration
from grader.gradebook import recorded_marks

if TYPE_CHECKING:
    from app.storage import Store
    from grader import Catalog

SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]


class Platform(LibraryRegistration):
    """The library's registration, signing with the kid the secrets name (the library's own
    derives one from a public key it is not given)."""

    kid = ""

    def get_kid(self):
        return self.kid


class Connector(ServiceConnector):
    """The library's connection to a platform's services, its access token kept a while."""

    def __init__(self, registration, requests_session=None):
        super().__init__(registration, requests_session)
        self._tokens: dict[str, tuple[str, float]] = {}

    def _get_cached_access_token(self, scope_key: str):
        token, until = self._tokens.get(scope_key, ("", 0.0))
        return token if until > time.time() else None

    def _cache_access_token(self, scope_key: str, access_token: str, expires_in: float):
        self._tokens[scope_key] = (access_token, time.time() + float(expires_in) - 30)


def sync(store: Store, catalog: Catalog, key: tuple[str, str]) -> list[Pushed]:
    """Send every learner's marks to the LMS they launched from: their recorded attempts
    scored by the one scoring function (as the dashboard's gradebook scores them), each
    learner keyed by their identity; return what each LMS answered (also recorded)."""
    owners = {p.profile_id: p.owner for p in ClassView(store).class_learners() if p.owner}
    facts = gradebook_facts(Answers(store).class_answers(), owners)
    marks = recorded_marks(facts, catalog)
    sent: list[Pushed] = []
    for owner in sorted(set(owners.values())):
        sent += push(store.lti, [m for m in marks if m.learner == owner], owner, key)
    return sent


def connector(registration: Registration, key: tuple[str, str]) -> Connector:
    """Return a connection to a registered platform's services, signing as the tool (key:
    its private key PEM and kid)."""
    pem, kid = key
    platform = Platform().set_issuer(registration.issuer).set_client_id(registration.client_id)
    platform.set_auth_token_url(registration.token_url).set_tool_private_key(pem)
    platform.kid = kid
    return Connector(platform, adapters.http())


def push(rows: Lti, marks, identity: str, key: tuple[str, str]) -> list[Pushed]:
    """Send a person's marks (their Mark of each item: points, out_of) to the LMS of each link
    they launched from; record and return what each LMS answered."""
    registered = {(r.issuer, r.client_id): r for r in rows.registrations()}
    sent = []
    for link in rows.links(identity):
        registration = registered.get((link.issuer, link.client_id))
        if registration is not None:
            sent += _push_link(connector(registration, key), link, marks)
    rows.record(sent)
    return sent


def _push_link(connection: Connector, link: Link, marks) -> list[Pushed]:
    """Send each mark to its line item of one link."""
    service = AssignmentsGradesService(connection, {"lineitems": link.lineitems, "scope": SCOPES})
    return [_push_one(service, link, m) for m in marks]


RETRIES = (0.2, 1.0)  # seconds before each new try of a score the LMS could not take now


def _push_one(service: AssignmentsGradesService, link: Link, mark) -> Pushed:
    """Send one mark: its line item found or made, its score put; tried again after a pause
    while the LMS answers 5xx or cannot be reached (a 4xx will not change); the last answer
    kept."""
    at = time.time()
    for pause in (*RETRIES, None):
        status, reason = _try_one(service, link, mark, at)
        if status < 500 and status != 0 or pause is None:
            break
        time.sleep(pause)
    return Pushed(link.identity, mark.item, mark.points, mark.out_of, at, status, reason)


def _try_one(service: AssignmentsGradesService, link: Link, mark, at: float) -> tuple[int, str]:
    """Try once to send one mark; return the LMS's status and its reason."""
    try:
        item = service.find_or_create_lineitem(_line_item(link, mark), condition=_same(link, mark))
        service.put_grade(_grade(link, mark, at), item)  # the library raises unless 2xx
    except LtiException as err:
        return _refusal(err)
    except requests.RequestException as err:  # the LMS not reached
        return 0, str(err)[:500]
    return 200, ""


def _same(link: Link, mark):
    """Return the test of a platform's line item being this link's for this item."""
    return lambda found: (
        found.get("resourceId") == mark.item and found.get("resourceLinkId") == link.resource_link
    )


def _line_item(link: Link, mark) -> LineItem:
    return (
        LineItem()
        .set_label(mark.item)
        .set_resource_id(mark.item)
        .set_resource_link_id(link.resource_link)
        .set_score_maximum(mark.out_of)
    )


def _grade(link: Link, mark, at: float) -> Grade:
    when = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(at))
    return (
        Grade()
        .set_user_id(link.user_id)
        .set_score_given(mark.points)
        .set_score_maximum(mark.out_of)
        .set_activity_progress("Completed")
        .set_grading_progress("FullyGraded")
        .set_timestamp(when)
    )


def _refusal(err: LtiException) -> tuple[int, str]:
    """Return the LMS's status and its reason, in its own words, from the library's error."""
    response = getattr(err, "response", None)  # LtiServiceException's: the platform's answer
    status = getattr(response, "status_code", 0) or 0
    return status, words(getattr(response, "text", "") or str(err))[:500]


def words(body: str) -> str:
    """Return an LMS's reason in words: the messages of a JSON error body (Canvas's
    `{"errors": [{"message": ...}]}`, an OAuth `error_description`, a `message`), else the
    body as it came."""
    try:
        found = json.loads(body)
    except ValueError:
        return body.strip()
    if not isinstance(found, dict):
        return body.strip()
    errors = found.get("errors")
    if isinstance(errors, list):
        said = [e.get("message") for e in errors if isinstance(e, dict) and e.get("message")]
        if said:
            return "; ".join(map(str, said))
    for key in ("error_description", "message", "error"):
        if isinstance(found.get(key), str):
            return found[key]
    return body.strip()
