"""Sign-ins kept on the server (app/classroom/sessions.py), on SQLite and PostgreSQL: a row per
sign-in named by the token's issuer, subject, iat and nonce; ended by sign-out, an instructor,
the idle and the absolute lifetimes, whatever the cookie says."""

from __future__ import annotations

import pytest

from app.classroom.sessions import (
    ENDED,
    EXPIRED,
    IDLE,
    SIGNED_OUT,
    TOUCH_EVERY,
    NoSignIn,
    Sessions,
    Verdict,
    seen,
)
from app.storage import open_store

ADA = "https://id.uni.test ada"
LIMITS = (2 * 3600.0, 12 * 3600.0)  # the defaults: idle, absolute
T = 1_800_000_000.0


def token(iat=T, nonce="n1", **more) -> dict:
    return {"iss": "https://id.uni.test", "sub": "ada", "iat": iat, "nonce": nonce, **more}


@pytest.fixture
def sessions(store_url):
    return Sessions(open_store(store_url))


def test_a_sign_in_is_named_by_its_token_and_needs_an_iat():
    assert seen(token(), ADA, T).id == seen(token(), ADA, T + 5).id
    assert seen(token(nonce="n2"), ADA, T).id != seen(token(), ADA, T).id, "another sign-in"
    assert seen(token(iat=T + 1), ADA, T).id != seen(token(), ADA, T).id
    assert seen(token(), "https://id.uni.test bob", T).id != seen(token(), ADA, T).id
    assert seen(token(iat=T + 99), ADA, T).issued == T, "never issued in the future"
    for iat in (None, "1800000000", True):
        with pytest.raises(NoSignIn):
            seen(token(iat=iat), ADA, T)


def test_a_fresh_sign_in_lives_and_is_seen_on_every_check(sessions):
    one = seen(token(), ADA, T)
    assert sessions.check(one, T, LIMITS) == Verdict(True)
    assert sessions.check(one, T + TOUCH_EVERY + 1, LIMITS) == Verdict(True)
    [live] = sessions.live(T + TOUCH_EVERY + 2, LIMITS)
    assert (live.owner, live.issued, live.last_seen) == (ADA, T, T + TOUCH_EVERY + 1)


def test_signing_out_ends_that_sign_in_only(sessions):
    one, other = seen(token(), ADA, T), seen(token(nonce="n2"), ADA, T)
    sessions.check(one, T, LIMITS), sessions.check(other, T, LIMITS)
    sessions.sign_out(one, T + 1)
    assert sessions.check(one, T + 2, LIMITS) == Verdict(False, SIGNED_OUT)
    assert sessions.check(other, T + 2, LIMITS) == Verdict(True)


def test_the_lifetimes_end_a_sign_in_whatever_the_cookie_says(sessions):
    idle = seen(token(), ADA, T)
    sessions.check(idle, T, LIMITS)
    assert sessions.check(idle, T + LIMITS[0] + 1, LIMITS) == Verdict(False, IDLE)
    assert sessions.check(idle, T + LIMITS[0] + 2, LIMITS) == Verdict(False, IDLE), "stays ended"
    old = seen(token(nonce="n3", iat=T - LIMITS[1] - 1), ADA, T)
    assert sessions.check(old, T, LIMITS) == Verdict(False, EXPIRED), "an old copied cookie"
    used = seen(token(nonce="n4"), ADA, T)
    for hour in range(1, 13):  # used every hour: idle never, expired after 12 h all the same
        verdict = sessions.check(used, T + hour * 3600 + 1, LIMITS)
    assert verdict == Verdict(False, EXPIRED)


def test_an_instructor_ends_every_sign_in_of_a_person_seen_or_not(sessions):
    seen_one = seen(token(), ADA, T)
    sessions.check(seen_one, T, LIMITS)
    bob = seen(token(sub="bob"), "https://id.uni.test bob", T)
    sessions.check(bob, T, LIMITS)
    assert sessions.end(ADA, T + 10) == 1
    assert sessions.check(seen_one, T + 11, LIMITS) == Verdict(False, ENDED)
    unseen = seen(token(nonce="unseen", iat=T + 5), ADA, T + 20)  # issued before the end
    assert sessions.check(unseen, T + 20, LIMITS) == Verdict(False, ENDED)
    again = seen(token(nonce="again", iat=T + 30), ADA, T + 30)  # signed in after it
    assert sessions.check(again, T + 30, LIMITS) == Verdict(True)
    assert sessions.check(bob, T + 30, LIMITS) == Verdict(True), "only ada's"
    assert {s.owner for s in sessions.live(T + 31, LIMITS)} == {ADA, bob.owner}


def test_ending_a_person_with_no_live_sign_in_still_ends_one_not_seen_yet(sessions):
    assert sessions.end(ADA, T) == 0
    unseen = seen(token(iat=T - 5), ADA, T + 1)
    assert sessions.check(unseen, T + 1, LIMITS) == Verdict(False, ENDED)
