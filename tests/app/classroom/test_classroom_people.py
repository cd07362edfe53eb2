"""Who a signed-in person is: identity from issuer and subject, roles only from what the provider
proves (issue 34): an identity named, a verified e-mail (`email_verified` exactly true), a claim,
the last two only from the configured issuer and tenant."""

from __future__ import annotations

import pytest

from app.classroom import INSTRUCTOR, LEARNER, NoIdentity, Trust, person
from app.classroom.claims import Refused

ISSUER = "https://id.uni.edu"
NOBODY = Trust(issuer=ISSUER)


def claims(sub="42", **more) -> dict:
    """Return an identity token's claims from ISSUER for subject sub."""
    return {"iss": ISSUER, "sub": sub, **more}


def test_the_identity_is_issuer_and_subject_never_the_email():
    ada = person(claims(email="ada@uni.edu", name="Ada"), NOBODY)
    same_mail = person(claims(sub="43", email="ada@uni.edu"), NOBODY)
    assert ada.identity == f"{ISSUER} 42" and ada.name == "Ada" and ada.role == LEARNER
    assert same_mail.identity != ada.identity
    other_issuer = person({**claims(), "iss": "https://other.edu"}, NOBODY)
    assert other_issuer.identity != ada.identity


@pytest.mark.parametrize(
    "token",
    [{"sub": "42"}, {"iss": ISSUER}, {"iss": ISSUER, "sub": ""}, {"iss": ISSUER, "sub": 42}],
    ids=["no issuer", "no subject", "empty subject", "number"],
)
def test_a_token_without_issuer_or_subject_is_refused(token):
    with pytest.raises(NoIdentity, match="no issuer"):
        person(token, NOBODY)


def verified(email: str, **more) -> dict:
    return claims(email=email, email_verified=True, **more)


ROLES = [
    ("listed e-mail", verified("Ada@Uni.edu"), ("ada@uni.edu",), None, INSTRUCTOR),
    ("other e-mail", verified("eve@uni.edu"), ("ada@uni.edu",), None, LEARNER),
    (
        "unverified e-mail",
        claims(email="ada@uni.edu", email_verified=False),
        ("ada@uni.edu",),
        None,
        LEARNER,
    ),
    *[
        (f"e-mail verified {v!r}", claims(email="ada@uni.edu", email_verified=v), ("ada@uni.edu",))
        + (None, LEARNER)
        for v in ("False", "FALSE", "0", "no", "true", "True", 1, None)
    ],
    ("e-mail verified absent", claims(email="ada@uni.edu"), ("ada@uni.edu",), None, LEARNER),
    ("look-alike e-mail", verified("\u0430da@uni.edu"), ("ada@uni.edu",), None, LEARNER),
    ("full-width e-mail", verified("\uff41da@uni.edu"), ("ada@uni.edu",), None, LEARNER),
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
    trust = Trust(emails=instructors, claim=claim, issuer=ISSUER)
    assert person(token, trust).role == role


PINNED = [
    ("identity named", claims(sub="7"), Trust(identities=(f"{ISSUER} 7",)), INSTRUCTOR),
    ("other subject", claims(sub="8"), Trust(identities=(f"{ISSUER} 7",)), LEARNER),
    (
        "identity of another issuer",
        {"iss": "https://evil.example", "sub": "7"},
        Trust(identities=(f"{ISSUER} 7",)),
        LEARNER,
    ),
    (
        "claim from another issuer",
        {"iss": "https://evil.example", "sub": "7", "groups": ["staff"]},
        Trust(claim=("groups", "staff"), issuer=ISSUER),
        LEARNER,
    ),
    (
        "verified e-mail from another issuer",
        {"iss": "https://evil.example", "sub": "7", "email": "ada@uni.edu"}
        | {"email_verified": True},
        Trust(emails=("ada@uni.edu",), issuer=ISSUER),
        LEARNER,
    ),
    (
        "claim from another tenant",
        claims(groups=["staff"], tid="other"),
        Trust(claim=("groups", "staff"), issuer=ISSUER, tenant="ours"),
        LEARNER,
    ),
    (
        "claim without a tenant",
        claims(groups=["staff"]),
        Trust(claim=("groups", "staff"), issuer=ISSUER, tenant="ours"),
        LEARNER,
    ),
    (
        "claim from our tenant",
        claims(groups=["staff"], tid="ours"),
        Trust(claim=("groups", "staff"), issuer=ISSUER, tenant="ours"),
        INSTRUCTOR,
    ),
    (
        "full-width group",
        claims(groups=["\uff53taff"]),
        Trust(claim=("groups", "staff"), issuer=ISSUER),
        LEARNER,
    ),
]


@pytest.mark.parametrize(("case", "token", "trust", "role"), PINNED, ids=[r[0] for r in PINNED])
def test_roles_are_pinned_to_the_issuer_and_tenant(case, token, trust, role):
    assert person(token, trust).role == role


BAD_CLAIMS = [
    ("name", "Mal\x00lory", "holds a control character"),
    ("name", "\x1b[31mred", "holds a control character"),
    ("name", "x" * 201, "is longer than 200 characters"),
    ("sub", "4\x002", "holds a control character"),
    ("email", "a@b\u2028c", "holds a control character"),
    ("groups", ["ok", "bad\x00"], "holds a control character"),
    ("groups", ["g"] * 257, "lists more than 256 values"),
    ("name", 42, "is not text"),
]


@pytest.mark.parametrize(("claim", "value", "why"), BAD_CLAIMS, ids=[b[2][:12] for b in BAD_CLAIMS])
def test_a_claim_the_app_cannot_keep_is_refused_with_why(claim, value, why):
    with pytest.raises(Refused) as refused:
        person({**claims(), claim: value}, NOBODY)
    assert (refused.value.claim, refused.value.why) == (claim, why)


def test_shown_claims_are_nfkc_and_the_identity_is_kept_exactly():
    who = person(claims(sub="\uff41", name="\uff21da", groups=["\uff21"]), NOBODY)
    assert (who.name, who.groups, who.identity) == ("Ada", ("A",), f"{ISSUER} \uff41")


def test_only_a_verified_address_is_kept_for_the_dashboard():
    assert person(verified("ada@uni.edu"), NOBODY).verified_email == "ada@uni.edu"
    assert person(claims(email="ada@uni.edu"), NOBODY).verified_email == ""


def test_a_name_falls_back_to_the_email_then_the_subject():
    assert person(claims(email="ada@uni.edu"), NOBODY).name == "ada@uni.edu"
    assert person(claims(), NOBODY).name == "42"


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
    assert person(claims(**more), NOBODY).groups == groups
