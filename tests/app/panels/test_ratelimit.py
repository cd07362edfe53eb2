"""The per-profile token bucket: bursts pass, a flood waits, normal practice never does."""

from __future__ import annotations

import pytest

from app.panels.ratelimit import RateLimiter, too_fast


def test_a_burst_passes_then_the_next_waits_for_a_token():
    limiter = RateLimiter(burst=5, rate=1.0)
    assert [limiter.wait("p", now=10.0) for _ in range(5)] == [0.0] * 5
    assert limiter.wait("p", now=10.0) == pytest.approx(1.0)
    assert limiter.wait("p", now=10.4) == pytest.approx(0.6)
    assert limiter.wait("p", now=11.0) == 0.0


def test_a_refused_submission_costs_nothing():
    limiter = RateLimiter(burst=1, rate=1.0)
    assert limiter.wait("p", now=0.0) == 0.0
    for _ in range(10):
        assert limiter.wait("p", now=0.5) == pytest.approx(0.5)
    assert limiter.wait("p", now=1.0) == 0.0


@pytest.mark.parametrize("gap", [1.0, 2.0, 15.0])
def test_typing_and_submitting_is_never_refused(gap):
    limiter = RateLimiter()
    times = [i * gap for i in range(200)]
    assert all(limiter.wait("p", now=t) == 0.0 for t in times)


def test_bursts_between_pauses_are_never_refused():
    limiter = RateLimiter(burst=5, rate=1.0)
    times = [start + 0.2 * i for start in range(0, 100, 10) for i in range(5)]
    assert all(limiter.wait("p", now=t) == 0.0 for t in times)


def test_a_flood_gets_about_one_a_second():
    limiter = RateLimiter(burst=5, rate=1.0)
    allowed = sum(limiter.wait("p", now=i * 0.01) == 0.0 for i in range(1000))
    assert 5 + 9 <= allowed <= 5 + 10


def test_profiles_have_their_own_buckets():
    limiter = RateLimiter(burst=1, rate=1.0)
    assert limiter.wait("ada", now=0.0) == 0.0
    assert limiter.wait("ada", now=0.0) > 0
    assert limiter.wait("bob", now=0.0) == 0.0


def test_the_clock_is_used_when_no_time_is_given():
    now = [0.0]
    limiter = RateLimiter(burst=1, rate=0.5, clock=lambda: now[0])
    assert limiter.wait("p") == 0.0
    assert limiter.wait("p") == pytest.approx(2.0)
    now[0] = 2.0
    assert limiter.wait("p") == 0.0


@pytest.mark.parametrize(
    ("wait", "message"),
    [
        (0.2, "You are submitting very fast; wait 1 s."),
        (1.0, "You are submitting very fast; wait 1 s."),
        (2.3, "You are submitting very fast; wait 3 s."),
    ],
)
def test_the_message_says_how_long_to_wait(wait, message):
    assert too_fast(wait) == message


@pytest.mark.parametrize(("burst", "rate"), [(0, 1.0), (5, 0.0), (5, -1.0)])
def test_a_limiter_that_would_refuse_everything_is_an_error(burst, rate):
    with pytest.raises(ValueError):
        RateLimiter(burst=burst, rate=rate)
