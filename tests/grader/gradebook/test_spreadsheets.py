"""Books no spreadsheet turns into code, and learners no look-alike name splits (issue 34).

A CSV written with `,` is opened in German or French Excel with `;`: a cell holding `x;=1+1`
became the live formula `=1+1`. Every cell is quoted and a formula character after any
separator is neutralised (safetext.cell); the books are read back with Python's csv reader
splitting on `;`, `,` and tabs, and with LibreOffice headless in a German locale (`;`, formulas
evaluated: Debian's libreoffice-calc, skipped with the reason where it is not installed). Learner
keys are NFKC with invisible characters removed; look-alikes (TR39 skeletons) are flagged.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from grader import gradebook
from grader.gradebook import safetext
from grader.gradebook.book import Book, Graded
from grader.gradebook.learners import key, lookalikes

FORMULA = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
# Texts a learner controls (a folder's name, code quoted in a summary), each with formulas
# after every separator a spreadsheet may split on.
HOSTILE = [
    "x;=1+1",
    "ada;@SUM(1;2)",
    'bob,=HYPERLINK("http://x";"y")',
    "tab\t=2+3",
    "line\n=4+5",
    "  -6+7",
    "a; +8",
    "\uff1d9",
    "\t=10",
    "cr\r=11",
]
CELLS = [
    ("=1", "'=1"),
    ("x;=1+1", "x;'=1+1"),
    ("a, -2", "a, '-2"),
    ("x\t@y", "x\t'@y"),
    ("\t=x", "'\t'=x"),
    ("line\n=2", "line\n'=2"),
    ("\uff1d1", "'\uff1d1"),
    ("plain; text, here", "plain; text, here"),
]


@pytest.mark.parametrize(("text", "cell"), CELLS, ids=[repr(c[0]) for c in CELLS])
def test_a_formula_character_after_any_separator_is_neutralised(text, cell):
    assert safetext.cell(text) == cell


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """Write a book whose learners, summaries and files hold HOSTILE texts."""
    folder = tmp_path_factory.mktemp("book")
    rows = [
        Graded(text, "dh", "exercise", False, "not_solved", f"got {text}", f"{text}.py")
        for text in HOSTILE
    ]
    plan = Book(("dh",), tuple(HOSTILE), names={t: f"name {t}" for t in HOSTILE})
    return gradebook.write_gradebook(rows, folder / "book", {"dataset": "default"}, plan)


def _rows(path: Path, delimiter: str) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8-sig") as f:
        return list(csv.reader(f, delimiter=delimiter))


@pytest.mark.parametrize("delimiter", [";", ",", "\t"], ids=["semicolon", "comma", "tab"])
def test_no_reader_splits_a_cell_into_a_formula(book, delimiter):
    long, wide, _ = book
    for path in (long, wide):
        rows = _rows(path, delimiter)
        assert len(rows) > len(HOSTILE), "the reader read every learner's line"
        bad = [c for row in rows for c in row if c.lstrip(" ").startswith(FORMULA)]
        assert not bad, (path.name, delimiter, bad[:5])


def test_every_cell_is_quoted(book):
    long, wide, _ = book
    for path in (long, wide):
        text = path.read_text(encoding="utf-8-sig")
        assert set(re.sub(r'"(?:[^"]|"")*"', "", text)) <= {",", "\r", "\n"}, "only quoted cells"


SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
# LibreOffice's CSV import options: `;` separator, `"` quotes, UTF-8, from line 1, German
# (1031), quoted fields not forced to text, no special numbers, ..., formulas evaluated.
GERMAN = "CSV:59,34,76,1,,1031,false,false,false,false,false,-1,true"


@pytest.mark.slow
@pytest.mark.skipif(
    SOFFICE is None,
    reason="LibreOffice is not installed (apt-get install --no-install-recommends "
    "libreoffice-calc: 40 MB, about 50 s; scripts/test does not install it)",
)
def test_libreoffice_in_a_german_locale_reads_no_formula(book, tmp_path):
    long, wide, _ = book
    env = {**os.environ, "HOME": str(tmp_path), "LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8"}
    command = [SOFFICE, "--headless", "--norestore", f"-env:UserInstallation={tmp_path.as_uri()}"]
    command += ["--infilter=" + GERMAN, "--convert-to", "fods", "--outdir", str(tmp_path)]
    done = subprocess.run(
        [*command, str(long), str(wide)], env=env, capture_output=True, text=True, timeout=300
    )
    for path in (long, wide):
        sheet = (tmp_path / path.name).with_suffix(".fods")
        assert sheet.exists(), done.stdout + done.stderr
        content = sheet.read_text()
        assert "table:formula=" not in content, re.findall(r'table:formula="[^"]*"', content)
        texts = [unicodedata.normalize("NFC", t) for t in re.findall(r"<text:p>([^<]*)<", content)]
        assert len(texts) > len(HOSTILE), "LibreOffice read the book"
        assert not [t for t in texts if t.lstrip(" ").startswith(FORMULA)]


def test_learner_keys_are_nfkc_without_invisible_characters():
    nfd = unicodedata.normalize("NFD", "zoé")
    assert key("ada\u200b") == key("ada") == key("\u2060ada\ufeff") == "ada"
    assert key(nfd) == key("zoé") == "zoé"
    assert key("\uff41\uff44\uff41") == "ada"
    assert key("\u0430da") != "ada", "a look-alike is not merged, only flagged"


def test_look_alike_names_are_flagged_not_merged():
    names = {"ada": "ada", "\u0430da": "\u0430da", "Ivy": "Ivy", "lvy": "lvy", "bob": "bob"}
    assert lookalikes(names) == {
        "ada": ("\u0430da",),
        "\u0430da": ("ada",),
        "Ivy": ("lvy",),
        "lvy": ("Ivy",),
    }


def test_a_class_of_look_alike_folders_is_one_learner_per_key_and_flagged(tmp_path):
    """ada, ada with a zero-width space, NFC and NFD zoé are one learner each; Cyrillic аda
    is another, flagged in the book as possibly the same learner as ada."""
    from grader import discover

    names = ["ada", "ada\u200b", "\u0430da", "zoé", unicodedata.normalize("NFD", "zoé")]
    for name in names:
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "notes.txt").write_text("hello")
    catalog = discover()
    _, refused, learners = gradebook.collect_class(tmp_path / "class", catalog, "")
    assert sorted(learners) == sorted(["ada", "\u0430da", "zoé"])
    roster = gradebook.read_roster(_write(tmp_path / "roster.txt", "ada\u200b\nzoe\u0301\n"))
    assert roster == ("ada", "zoé")
    plan = Book(("dh",), tuple(learners), roster)
    *_, document = gradebook.write_gradebook(refused, tmp_path / "book", {}, plan)
    found = {e["learner"]: e for e in json.loads(document.read_text())["learners"]}
    assert found["ada"]["possibly_same_as"] == ["\\u0430da"] or found["ada"][
        "possibly_same_as"
    ] == ["\u0430da"]
    assert found["zoé"]["possibly_same_as"] == [] and found["zoé"]["on_roster"]
    assert len(found["ada"]["items"]) == 2, "both spellings' files are ada's"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_the_wide_csv_names_and_flags_each_learner(book):
    _, wide, _ = book
    rows = list(csv.DictReader(io.StringIO(wide.read_text(encoding="utf-8-sig"))))
    assert list(rows[0])[-2:] == ["name", "possibly_same_as"]
    assert {r["name"] for r in rows} >= {safetext.cell(f"name {HOSTILE[0]}")}
