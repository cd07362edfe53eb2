"""Clean raw lines into words over [a-z_], counting every change for the learner."""

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

TOKEN = "_"
MAX_EXAMPLES = 10
NOT_LETTERS = re.compile(r"[^a-z]+")
CLEAN = re.compile(r"[a-z]+")  # a line that cleaning leaves as it is (most lines)
# Letters that NFKD does not decompose into a base letter plus combining marks.
EXTRA_ASCII = str.maketrans(
    {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"}
)


@dataclass(frozen=True)
class CleanReport:
    """Count what cleaning changed; examples are (original, cleaned) pairs."""

    lines_read: int = 0
    lowercased: int = 0
    accents_removed: int = 0
    mapped_to_token: int = 0
    empty_dropped: int = 0
    duplicates_dropped: int = 0
    examples: tuple[tuple[str, str], ...] = ()

    def describe(self) -> list[str]:
        """Return one short sentence per kind of change that happened."""
        parts = [
            (self.lowercased, "line was lowercased", "lines were lowercased"),
            (self.accents_removed, "line lost its accents", "lines lost their accents"),
            (self.mapped_to_token, f"character became `{TOKEN}`", f"characters became `{TOKEN}`"),
            (self.empty_dropped, "empty line was dropped", "empty lines were dropped"),
            (self.duplicates_dropped, "duplicate was dropped", "duplicates were dropped"),
        ]
        return [f"{n:,} {one if n == 1 else many}." for n, one, many in parts if n]


def strip_accents(text: str) -> str:
    """Return text with accents removed: NFKD, drop combining marks, spell out ß, æ, ø, …."""
    if text.isascii():  # nothing to decompose: most word lists, and fast
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return bare.translate(EXTRA_ASCII)


def clean_lines(lines: Iterable[str]) -> tuple[tuple[str, ...], CleanReport]:
    """Clean every line, drop empty and duplicate words, and report what changed."""
    words: dict[str, None] = {}
    counts = dict.fromkeys(("read", "lower", "accents", "mapped", "empty", "dupes"), 0)
    examples: dict[str, str] = {}
    for raw in lines:
        line = raw.strip()
        word = line if CLEAN.fullmatch(line) else _count_changes(line, counts)
        counts["read"] += 1
        if not word:
            counts["empty"] += 1
        elif word in words:
            counts["dupes"] += 1
        else:
            words[word] = None
        if word != line and line and len(examples) < MAX_EXAMPLES:
            examples.setdefault(line, word)
    return tuple(words), _report(counts, examples)


def _count_changes(line: str, counts: dict[str, int]) -> str:
    """Return the cleaned line, adding each kind of change to counts."""
    lower = line.lower()
    ascii_text = strip_accents(lower)
    counts["lower"] += lower != line
    counts["accents"] += ascii_text != lower
    counts["mapped"] += sum(len(run) for run in NOT_LETTERS.findall(ascii_text))
    return NOT_LETTERS.sub(TOKEN, ascii_text).strip(TOKEN)


def _report(counts: dict[str, int], examples: dict[str, str]) -> CleanReport:
    """Return the CleanReport for the tallied counts and examples."""
    return CleanReport(
        lines_read=counts["read"],
        lowercased=counts["lower"],
        accents_removed=counts["accents"],
        mapped_to_token=counts["mapped"],
        empty_dropped=counts["empty"],
        duplicates_dropped=counts["dupes"],
        examples=tuple(examples.items()),
    )
