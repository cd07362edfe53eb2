import pytest

from data.errors import DatasetError
from data.words import MAX_BYTES, WordList, load_words

TEN_NAMES = b"emma\nolivia\nava\nisabella\nsophia\nmia\namelia\nharper\nevelyn\nabigail\n"

ERROR_CASES = [
    ("empty", b"", {}, "The file is empty."),
    ("empty, named", b"", {"filename": "birds.txt"}, "`birds.txt` is empty."),
    ("blank lines only", b"\n  \n\t\r\n", {}, "The file is empty."),
    (
        "too large",
        TEN_NAMES,
        {"max_bytes": 50},
        "is too large: got 65 bytes, expected at most 50 bytes",
    ),
    ("too large, kB", TEN_NAMES * 20, {"max_bytes": 1000}, "got 1.3 kB, expected at most 1.0 kB"),
    ("NUL byte", b"anna\n\x00bob\n", {}, "looks binary, not text: it has a NUL byte at offset 5"),
    ("random bytes", bytes(range(128, 256)) * 4 + bytes(range(1, 32)), {}, "looks binary"),
    ("control characters", b"\x01\x02\x03\x04ab\n" * 20, {}, "% of it is not printable"),
    ("UTF-16", "anna\nbob\n".encode("utf-16"), {}, "is UTF-16, not UTF-8"),
    (
        "Latin-1",
        "anna\nzoë\n".encode("latin-1") + TEN_NAMES,
        {"filename": "n.txt"},
        "`n.txt` is not UTF-8: byte 0xEB at offset 7 (line 2) cannot be decoded.",
    ),
    (
        "too few words",
        b"a\nb\nc\n",
        {},
        "has too few words: got 3 after cleaning, expected at least 10",
    ),
    ("duplicates only", b"anna\nAnna\nANNA\n" * 5, {}, "has too few words: got 1 after cleaning"),
    ("min_words", TEN_NAMES, {"min_words": 11}, "got 10 after cleaning, expected at least 11"),
    ("one character", b"a\naa\naaa\naaaa\naaaaa\n" * 3, {"min_words": 5}, "got 1 ('a')"),
    ("csv column", b"name,kind\nanna,x\n", {"column": "names"}, "has no column `names`"),
]


@pytest.mark.parametrize(
    ("data", "kwargs", "message"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_load_words_explains_bad_input(data, kwargs, message):
    with pytest.raises(DatasetError) as info:
        load_words(data, **kwargs)
    assert message in str(info.value)
    assert info.value.message == str(info.value)


def test_load_words_reads_plain_text():
    result = load_words(b"Emma\nZo\xc3\xab\n\nemma\n" + TEN_NAMES)
    assert isinstance(result, WordList)
    assert result.words[:3] == ("emma", "zoe", "olivia")
    assert len(result.words) == 11
    assert result.report.lines_read == 14
    assert result.report.duplicates_dropped == 2


def test_load_words_strips_a_utf8_bom_and_crlf():
    result = load_words(b"\xef\xbb\xbf" + TEN_NAMES.replace(b"\n", b"\r\n"))
    assert result.words[0] == "emma"
    assert result.report.mapped_to_token == 0


def test_load_words_reads_the_first_csv_column_by_default():
    data = b"Name,Count\n" + b"".join(w + b",1\n" for w in TEN_NAMES.split())
    result = load_words(data, filename="names.csv")
    assert result.words[:2] == ("emma", "olivia")
    assert result.report.lines_read == 10


def test_load_words_reads_a_named_csv_column():
    rows = [f'{i},"Black-capped Chickadee {chr(97 + i)}",bird' for i in range(10)]
    data = ("id,Common Name,kind\n" + "\n".join(rows)).encode()
    result = load_words(data, column="common name")
    assert result.words[0] == "black_capped_chickadee_a"
    assert len(result.words) == 10


def test_load_words_sniffs_a_semicolon_csv(tmp_path):
    path = tmp_path / "names.csv"
    path.write_bytes(b"rank;name\n" + b"".join(b"1;" + w + b"\n" for w in TEN_NAMES.split()))
    assert load_words(path, column="name").words[0] == "emma"


def test_load_words_reads_a_path_given_as_str(tmp_path):
    path = tmp_path / "names.txt"
    path.write_bytes(TEN_NAMES)
    assert load_words(str(path)).words == tuple(TEN_NAMES.decode().split())


@pytest.mark.parametrize(
    ("setup", "message"),
    [("missing", "`nope.txt` does not exist"), ("empty", "`nope.txt` is empty.")],
)
def test_load_words_explains_bad_paths(tmp_path, setup, message):
    path = tmp_path / "nope.txt"
    if setup == "empty":
        path.write_bytes(b"")
    with pytest.raises(DatasetError, match=message):
        load_words(path)


def test_load_words_checks_size_before_reading(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"anna\n" * (MAX_BYTES // 5 + 1))
    with pytest.raises(
        DatasetError, match="`big.txt` is too large: got 20.1 MB, expected at most 20.0 MB"
    ):
        load_words(path)


def test_load_words_treats_a_short_csv_row_as_empty():
    data = b"id,name\n" + b"".join(b"%d,n%c\n" % (i, 97 + i) for i in range(10)) + b"11\n"
    result = load_words(data, column="name")
    assert len(result.words) == 10
    assert result.report.empty_dropped == 1
