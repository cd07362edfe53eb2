import pytest

from data.clean import MAX_EXAMPLES, CleanReport, clean_lines, strip_accents

CLEAN_CASES = [
    ("already clean", "emma", "emma"),
    ("lowercase", "Emma", "emma"),
    ("diaeresis", "Zoë", "zoe"),
    ("acute", "José", "jose"),
    ("ligature and slash", "Ærø", "aero"),
    ("stroke", "Łukasz", "lukasz"),
    ("sharp s", "Straße", "strasse"),
    ("full-width letters", "Ｅｍｍａ", "emma"),
    ("space", "Mary Ann", "mary_ann"),
    ("hyphen and double space", "Black-capped  Chickadee", "black_capped_chickadee"),
    ("run of mixed separators", "a - b", "a_b"),
    ("boundary character", "St. John", "st_john"),
    ("digits", "R2D2", "r_d"),
    ("outer spaces and punctuation", "  'Anna!' ", "anna"),
    ("outer tab", "\tliam\t", "liam"),
    ("punctuation only", "???", ""),
    ("not latin", "Мария", ""),
]


@pytest.mark.parametrize(
    ("line", "expected"), [c[1:] for c in CLEAN_CASES], ids=[c[0] for c in CLEAN_CASES]
)
def test_clean_lines_cleans_one_line(line, expected):
    words, _ = clean_lines([line])
    assert words == ((expected,) if expected else ())


def test_clean_lines_counts_every_kind_of_change():
    lines = ["Zoë", "zoe", "", "Mary Ann", "emma", "EMMA", "!!!"]
    words, report = clean_lines(lines)
    assert words == ("zoe", "mary_ann", "emma")
    assert report == CleanReport(
        lines_read=7,
        lowercased=3,
        accents_removed=1,
        mapped_to_token=4,
        empty_dropped=2,
        duplicates_dropped=2,
        examples=(("Zoë", "zoe"), ("Mary Ann", "mary_ann"), ("EMMA", "emma"), ("!!!", "")),
    )


def test_clean_lines_keeps_first_occurrence_order():
    words, _ = clean_lines(["b", "a", "B", "c", "a"])
    assert words == ("b", "a", "c")


def test_clean_lines_keeps_at_most_max_examples():
    _, report = clean_lines([f"Name{i}x" for i in range(3 * MAX_EXAMPLES)])
    assert len(report.examples) == MAX_EXAMPLES
    assert report.examples[0] == ("Name0x", "name_x")


def test_clean_lines_reports_nothing_for_clean_input():
    _, report = clean_lines(["emma", "olivia"])
    assert report == CleanReport(lines_read=2)
    assert report.describe() == []


def test_describe_uses_singular_and_plural():
    report = CleanReport(lines_read=5, lowercased=1, mapped_to_token=2, duplicates_dropped=1234)
    assert report.describe() == [
        "1 line was lowercased.",
        "2 characters became `_`.",
        "1,234 duplicates were dropped.",
    ]


def test_strip_accents_keeps_plain_ascii():
    assert strip_accents("Plain ASCII-text 123") == "Plain ASCII-text 123"
