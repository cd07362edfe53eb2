"""Read an uploaded word list in a child process and return what the app shows and saves.

The app's process never cleans an upload itself: `read_upload` hands the bytes to
`python -m data` (data/bounded.py: a memory cap, a time limit), which cleans them with
load_words and returns a Preview (counts, a few words, word lengths in at most MAX_BARS
buckets) and the cleaned words as one text, one word a line.

    >>> upload = read_upload(raw, "birds.csv", "Name")  # or DatasetError
    >>> upload.preview.words, upload.preview.lengths[0]  # 14, (4, 4, 1): 1 word of length 4
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from data import bounded
from data.clean import CleanReport
from data.errors import DatasetError
from data.words import check_size, load_words

MAX_UPLOAD_BYTES = 2_000_000  # nine times the lecture's names.txt
MAX_BARS = 30
FIRST = 5  # words shown as examples


@dataclass(frozen=True)
class Preview:
    """A cleaned word list as the learner sees it before using it; every field is bounded."""

    words: int
    chars: str  # the distinct characters, sorted
    first: tuple[str, ...]
    lengths: tuple[tuple[int, int, int], ...]  # (shortest, longest, words) per bucket
    report: CleanReport | None = None


@dataclass(frozen=True)
class Upload:
    """An upload read in the child: its preview, and its cleaned words, one a line."""

    preview: Preview
    text: str


def preview(words: tuple[str, ...], report: CleanReport | None = None) -> Preview:
    """Return the preview of cleaned words: counts, the first words, bucketed lengths."""
    counts: dict[int, int] = {}
    for word in words:
        counts[len(word)] = counts.get(len(word), 0) + 1
    chars = "".join(sorted(set().union(*words))) if words else ""
    return Preview(len(words), chars, tuple(words[:FIRST]), _buckets(counts), report)


def _buckets(counts: dict[int, int]) -> tuple[tuple[int, int, int], ...]:
    """Return (shortest, longest, words) for lengths 1.. in at most MAX_BARS equal buckets."""
    longest = max(counts, default=0)
    width = max(1, math.ceil(longest / MAX_BARS))
    spans = [(a, min(a + width - 1, longest)) for a in range(1, longest + 1, width)]
    return tuple((a, b, sum(counts.get(n, 0) for n in range(a, b + 1))) for a, b in spans)


def read_upload(raw: bytes, filename: str, column: str | None = None) -> Upload:
    """Clean an upload in a child process; raise DatasetError for one that cannot be used."""
    check_size(len(raw), f"`{filename}`", MAX_UPLOAD_BYTES)
    outcome = bounded.run("data", raw, [filename, column])
    if outcome.over is not None:
        limit = bounded.LIMITS[outcome.over]
        raise DatasetError(f"`{filename}` could not be read within {limit}; it is too costly.")
    if "refused" in outcome.result:
        raise DatasetError(outcome.result["refused"])
    return Upload(_preview(outcome.result["preview"]), outcome.result["text"])


def _preview(fields: dict) -> Preview:
    """Return the Preview that asdict() and JSON made into `fields`."""
    report = fields["report"]
    if report is not None:
        examples = tuple(tuple(pair) for pair in report["examples"])
        report = CleanReport(**{**report, "examples": examples})
    lengths = tuple(tuple(bucket) for bucket in fields["lengths"])
    return Preview(fields["words"], fields["chars"], tuple(fields["first"]), lengths, report)


def read_in_child(raw: bytes, args: list) -> dict:
    """Clean an upload (in the child): its preview and text, or why it was refused."""
    filename, column = args
    try:
        words = load_words(raw, filename=filename, column=column, max_bytes=MAX_UPLOAD_BYTES)
    except DatasetError as err:
        return {"refused": err.message}
    shown = preview(words.words, words.report)
    return {"preview": asdict(shown), "text": "\n".join(words.words) + "\n"}
