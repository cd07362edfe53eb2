"""Browser identities: signed cookies that cannot be forged, and a secret kept private."""

from __future__ import annotations

import stat

import pytest

from app.config.identity import load_secret, sign, verify

KEY = bytes(range(32))


def _flip_last(text: str) -> str:
    return text[:-1] + ("1" if text[-1] == "0" else "0")


def test_a_signed_identity_verifies():
    assert verify(sign("a1b2", KEY), KEY) == "a1b2"


@pytest.mark.parametrize(
    ("case", "cookie"),
    [
        ("missing", None),
        ("empty", ""),
        ("no signature", "a1b2"),
        ("another identity's signature", "a1b3." + sign("a1b2", KEY).partition(".")[2]),
        ("a changed signature", _flip_last(sign("a1b2", KEY))),
        ("signed with another secret", sign("a1b2", bytes(32))),
        ("no identity", "." + sign("", KEY).partition(".")[2]),
    ],
)
def test_a_cookie_that_does_not_prove_its_identity_is_refused(case, cookie):
    assert verify(cookie, KEY) is None


def test_the_secret_is_drawn_once_and_only_its_owner_can_read_it(tmp_path):
    path = tmp_path / "var" / "identity.key"
    first = load_secret(path)
    assert len(first) == 32 and load_secret(path) == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o644)
    assert load_secret(path) == first and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["identity.key"], "no draft left behind"
    assert load_secret(tmp_path / "other.key") != first
