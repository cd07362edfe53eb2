"""Who a signed-in person is: identity from issuer and subject, roles from the configuration."""

from __future__ import annotations

import pytest

from app.classroom import INSTRUCTOR, LEARNER, NoIdentity, person

ISSUER = "https://id.uni.edu"


def claims(sub="42", **more) -> dict:
    """Return an identity token's claims from ISSUER for subject sub."""
    return {"iss": ISSUER, "sub": sub, **more}


def test_the_identity_is_issuer_and_subject_never_the_email():
    ada = person(claims(email="ada@uni.edu", name="Ada"), instructors=(), claim=None)
    same_mail = person(claims(sub="43", email="ada@uni.edu"), instructors=(), claim=None)
    assert ada.identity == f"{ISSUER} 42" and ada.name == "Ada" and ada.role == LEARNER
    assert same_mail.identity != ada.identity
    other_issuer = person({**claims(), "iss": "https://other.edu"}, instructors=(), claim=None)
    assert other_issuer.identity != ada.identity


@pytest.mark.parametrize(
    "token",
    [{"sub": "42"}, {"iss": ISSUER}, {"iss": ISSUER, "sub": ""}, {"iss": ISSUER, "sub": 42}],
    ids=["no issuer", "no subject", "empty subject", "number"],
)
def test_a_token_without_issuer_or_subject_is_refused(token):
    with pytest.raises(NoIdentity, match="no issuer"):
        person(token, instructors=(), claim=None)


ROLES = [
    ("listed e-mail", claims(email="Ada@Uni.edu"), ("ada@uni.edu",), None, INSTRUCTOR),
    ("other e-mail", claims(email="eve@uni.edu"), ("ada@uni.edu",), None, LEARNER),
    (
        "unverified e-mail",
        claims(email="ada@uni.edu", email_verified=False),
        ("ada@uni.edu",),
        None,
        LEARNER,
    ),
    ("claim value", claims(role="staff"), (), ("role", "staff"), INSTRUCTOR),
    ("claim list", claims(groups=["cs101", "staff"]), (), ("groups", "staff"), INSTRUCTOR),
    ("claim other", claims(groups=["cs101"]), (), ("groups", "staff"), LEARNER),
    ("claim absent", claims(), (), ("groups", "staff"), LEARNER),
    (
        "either",
        claims(email="eve@uni.edu", groups="staff"),
        ("a@u.edu",),
        ("groups", "staff"),
        INSTRUCTOR,
    ),
]


@pytest.mark.parametrize(
    ("case", "token", "instructors", "claim", "role"), ROLES, ids=[r[0] for r in ROLES]
)
def test_roles_come_from_the_email_list_or_the_claim(case, token, instructors, claim, role):
    assert person(token, instructors=instructors, claim=claim).role == role


def test_a_name_falls_back_to_the_email_then_the_subject():
    assert person(claims(email="ada@uni.edu"), (), None).name == "ada@uni.edu"
    assert person(claims(), (), None).name == "42"


@pytest.mark.parametrize(
    ("more", "groups"),
    [
        ({}, ()),
        ({"groups": ["A", " B ", "A", 3, ""]}, ("A", "B")),
        ({"groups": "A"}, ("A",)),
        ({"section": "S1", "groups": ["A"]}, ("A", "S1")),
        ({"groups": {"A": 1}}, ()),
    ],
)
def test_groups_come_from_the_groups_and_section_claims(more, groups):
    assert person(claims(**more), instructors=(), claim=None).groups == groups
