"""The `lecture` key: where in the lecture video an exercise is taught, as a plain link.

A file gives a time in the video (`"1:05:17"`, `"13:01"`) or a URL on the video itself
(`"https://www.youtube.com/watch?v=q8SA3rM6ckI&t=3917"`). Nothing is fetched: the app shows
the link and the learner's browser follows it.

Only the chapters' starts are published; a time between them is an estimate (the step
exercises' moments were placed from where the lecture's transcripts discuss them, between the
chapter marks: docs/learner-path.md), so its label says "about".

    >>> parse_lecture("1:05:17", "exercises/01_mlp/17_dbnvar.toml").url
    'https://www.youtube.com/watch?v=q8SA3rM6ckI&t=3917'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grader.course.schema import require

VIDEO = "https://www.youtube.com/watch?v=q8SA3rM6ckI"
# The video's published chapters: (start in seconds, title).
CHAPTERS = (
    (0, "introduction"),
    (446, "starter code"),
    (781, "exercise 1: backprop through the whole graph"),
    (3917, "Bessel's correction in batchnorm"),
    (5191, "exercise 2: cross-entropy in one go"),
    (5797, "exercise 3: batchnorm in one go"),
    (6602, "exercise 4: putting it all together"),
)
TIME = re.compile(r"^(?:(\d+):)?([0-5]?\d):([0-5]\d)$")
URL = re.compile(r"^" + re.escape(VIDEO) + r"(?:&t=(\d+)s?)?$")


@dataclass(frozen=True)
class LectureLink:
    """A moment of the lecture video: its start in seconds and the chapter it falls in."""

    seconds: int

    @property
    def url(self) -> str:
        """Return the video's address, opening at this moment."""
        return f"{VIDEO}&t={self.seconds}"

    @property
    def time(self) -> str:
        """Return the moment as the video player shows it: 1:05:17."""
        hours, rest = divmod(self.seconds, 3600)
        return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"

    @property
    def chapter(self) -> str:
        """Return the title of the chapter this moment falls in."""
        return [title for start, title in CHAPTERS if start <= self.seconds][-1]

    @property
    def estimated(self) -> bool:
        """Return whether this moment is an estimate: not the start of a published chapter."""
        return all(start != self.seconds for start, _ in CHAPTERS)

    @property
    def label(self) -> str:
        """Return how a link to this moment reads: a chapter's start with its title
        ("1:26:31, exercise 2: cross-entropy in one go"), an estimate with "about"."""
        return f"about {self.time}" if self.estimated else f"{self.time}, {self.chapter}"


TRAINING = LectureLink(6602)  # Exercise 4, the app's training page


def parse_lecture(value: str, where: str) -> LectureLink:
    """Read a `lecture` value; raise SchemaError naming the file and field if malformed."""
    field = f"{where}: lecture"
    text = value.strip()
    time, url = TIME.match(text), URL.match(text)
    require(
        time is not None or url is not None,
        field,
        f"must be a time in the lecture video such as `1:05:17`, or a URL on {VIDEO} "
        f"(with `&t=SECONDS`); got `{value}`",
    )
    if url is not None:
        return LectureLink(int(url.group(1) or 0))
    hours, minutes, seconds = (int(part or 0) for part in time.groups())
    return LectureLink(hours * 3600 + minutes * 60 + seconds)
