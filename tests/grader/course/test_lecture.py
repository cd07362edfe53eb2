"""The `lecture` key: times and URLs on the lecture video, their chapter, and refusals."""

from __future__ import annotations

import pytest

from grader.course.lecture import VIDEO, parse_lecture
from grader.course.schema import SchemaError


@pytest.mark.parametrize(
    ("value", "seconds", "chapter"),
    [
        ("0:13:01", 781, "exercise 1: backprop through the whole graph"),
        ("13:01", 781, "exercise 1: backprop through the whole graph"),
        ("1:05:17", 3917, "Bessel's correction in batchnorm"),
        ("1:30:00", 5400, "exercise 2: cross-entropy in one go"),
        (f"{VIDEO}&t=5797", 5797, "exercise 3: batchnorm in one go"),
        (f"{VIDEO}&t=6602s", 6602, "exercise 4: putting it all together"),
        (VIDEO, 0, "introduction"),
    ],
)
def test_a_time_or_a_url_on_the_video_becomes_a_chapter_link(value, seconds, chapter):
    link = parse_lecture(value, "x.toml")
    assert link.seconds == seconds and link.chapter == chapter
    assert link.url == f"{VIDEO}&t={seconds}"


def test_the_time_is_shown_as_the_player_shows_it():
    assert parse_lecture(f"{VIDEO}&t=3917", "x.toml").time == "1:05:17"
    assert parse_lecture("0:07:26", "x.toml").time == "0:07:26"


@pytest.mark.parametrize(
    "value",
    [
        "1:65:17",
        "an hour in",
        "1h05m17s",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=10",
        f"{VIDEO}&t=ten",
        "http://example.com/q8SA3rM6ckI",
        "",
    ],
)
def test_anything_else_is_refused_naming_the_file_and_field(value):
    with pytest.raises(SchemaError) as err:
        parse_lecture(value, "exercises/01_mlp/17_dbnvar.toml")
    assert err.value.where == "exercises/01_mlp/17_dbnvar.toml: lecture"
    assert "1:05:17" in err.value.problem and VIDEO in err.value.problem
