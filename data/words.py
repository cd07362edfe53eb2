"""Load a word list from a text or CSV file, or from uploaded bytes, and clean it."""

import csv
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path

from data.clean import CleanReport, clean_lines
from data.errors import DatasetError

MAX_BYTES = 20_000_000
MAX_WORD_CHARS = 100  # a line (or CSV value) longer than this is not a word; names are under 20
SHOWN_COLUMNS = 20  # columns named in a message
MIN_WORDS = 10
MIN_CHARS = 2
BINARY_SHARE = 0.3
CSV_SUFFIXES = (".csv", ".tsv")
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# Control characters that are not white space (str.isspace), and the replacement character.
ODD = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\ufffd]")


@dataclass(frozen=True)
class WordList:
    """Cleaned words in first-seen order, and a report of what cleaning changed."""

    words: tuple[str, ...]
    report: CleanReport


def load_words(
    source: str | Path | bytes,
    *,
    filename: str | None = None,
    column: str | None = None,
    max_bytes: int = MAX_BYTES,
    min_words: int = MIN_WORDS,
) -> WordList:
    """Load and clean a word list: one word per line, or one column of a CSV file.

    source is a path or the raw bytes of an upload (then filename names it in messages and,
    by its suffix, says whether it is CSV). A CSV file has a header row; column picks a column
    by name (default: the first) and implies CSV. Raise DatasetError for unusable input.

        >>> birds = load_words(upload_bytes, filename="birds.csv", column="Name")
        >>> birds.words[0], birds.report.examples[0]
        ('black_capped_chickadee', ('Black-capped Chickadee', 'black_capped_chickadee'))
    """
    raw, label, name = _read(source, filename, max_bytes)
    text = _decode(raw, label)
    is_csv = column is not None or Path(name or "").suffix.lower() in CSV_SUFFIXES
    lines = _csv_column(text, column, label) if is_csv else text.splitlines()
    _check_lengths(lines, label, "row" if is_csv else "line")
    words, report = clean_lines(lines)
    _check_words(words, label, min_words)
    return WordList(words, report)


def _read(
    source: str | Path | bytes, filename: str | None, max_bytes: int
) -> tuple[bytes, str, str | None]:
    """Return (bytes, label for messages, file name) for a path or uploaded bytes."""
    if isinstance(source, bytes):
        label = f"`{filename}`" if filename else "The file"
        check_size(len(source), label, max_bytes)
        return source, label, filename
    path = Path(source)
    label = f"`{path.name}`"
    if not path.is_file():
        raise DatasetError(f"{label} does not exist or is not a file: {path}.")
    check_size(path.stat().st_size, label, max_bytes)
    return path.read_bytes()[: max_bytes + 1], label, path.name


def check_size(size: int, label: str, max_bytes: int) -> None:
    """Raise DatasetError if a file is empty or larger than max_bytes."""
    if size == 0:
        raise DatasetError(f"{label} is empty. Hint: put one word per line.")
    if size > max_bytes:
        got, limit = _size(size), _size(max_bytes)
        raise DatasetError(f"{label} is too large: got {got}, expected at most {limit}.")


def _size(n: int) -> str:
    """Return n bytes as "812 bytes", "3.5 kB" or "20.1 MB", rounded up."""
    if n < 1000:
        return f"{n} bytes"
    unit, scale = ("kB", 1000) if n < 1_000_000 else ("MB", 1_000_000)
    return f"{math.ceil(10 * n / scale) / 10:.1f} {unit}"


def _decode(raw: bytes, label: str) -> str:
    """Return raw decoded as UTF-8 (with or without a BOM), or raise DatasetError."""
    if raw.startswith(UTF16_BOMS):
        raise DatasetError(f"{label} is UTF-16, not UTF-8. Hint: save it as UTF-8.")
    if b"\x00" in raw:
        offset = raw.index(b"\x00")
        raise DatasetError(f"{label} looks binary, not text: it has a NUL byte at offset {offset}.")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        _check_text(raw.decode("utf-8", errors="replace"), label)
        bad, line = raw[err.start], raw[: err.start].count(b"\n") + 1
        raise DatasetError(
            f"{label} is not UTF-8: byte 0x{bad:02X} at offset {err.start} (line {line}) "
            "cannot be decoded. Hint: save it as UTF-8."
        ) from None
    _check_text(text, label)
    return text


def _check_text(text: str, label: str) -> None:
    """Raise DatasetError if text is mostly control or undecodable characters."""
    odd = len(ODD.findall(text))
    if odd > BINARY_SHARE * len(text):
        share = round(100 * odd / len(text))
        raise DatasetError(f"{label} looks binary, not text: {share}% of it is not printable.")
    if not text.strip():
        raise DatasetError(f"{label} is empty. Hint: put one word per line.")


def _check_lengths(lines: list[str], label: str, unit: str) -> None:
    """Raise DatasetError if a line (or CSV value) is longer than any word: MAX_WORD_CHARS."""
    longest = max(lines, key=len, default="")
    if len(longest) <= MAX_WORD_CHARS:
        return
    longest = max(lines, key=lambda line: len(line.strip()))
    if len(longest.strip()) > MAX_WORD_CHARS:
        number = lines.index(longest) + 1
        raise DatasetError(
            f"{label} has a word of {len(longest.strip()):,} characters on {unit} {number}; "
            f"the limit is {MAX_WORD_CHARS} characters. Hint: put one word per line."
        )


def _csv_column(text: str, column: str | None, label: str) -> list[str]:
    """Return the values of one column of CSV text (by header name; default the first)."""
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), dialect))
    except csv.Error as err:
        raise DatasetError(f"{label} is not valid CSV: {err}.") from None
    header = [h.strip() for h in rows[0]]
    index = _column_index(header, column, label)
    return [row[index] if index < len(row) else "" for row in rows[1:]]


def _column_index(header: list[str], column: str | None, label: str) -> int:
    """Return the index of column in header, matching case-insensitively as a fallback."""
    if column is None:
        return 0
    lowered = [h.lower() for h in header]
    if column.strip() in header:
        return header.index(column.strip())
    if column.strip().lower() in lowered:
        return lowered.index(column.strip().lower())
    got = ", ".join(f"`{h}`" for h in header[:SHOWN_COLUMNS])
    more = f" and {len(header) - SHOWN_COLUMNS:,} more" if len(header) > SHOWN_COLUMNS else ""
    raise DatasetError(f"{label} has no column `{column}`: got columns {got}{more}.")


def _check_words(words: tuple[str, ...], label: str, min_words: int) -> None:
    """Raise DatasetError if too few words or characters are left after cleaning."""
    if len(words) < min_words:
        raise DatasetError(
            f"{label} has too few words: got {len(words)} after cleaning, "
            f"expected at least {min_words}."
        )
    chars = sorted(set("".join(words)))
    if len(chars) < MIN_CHARS:
        got = ", ".join(f"'{c}'" for c in chars)
        raise DatasetError(
            f"{label} has too few distinct characters: got {len(chars)} ({got}) after cleaning, "
            f"expected at least {MIN_CHARS}."
        )
