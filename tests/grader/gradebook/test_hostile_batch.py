"""A gradebook nothing can spoil: a hostile class folder through `python -m grader grade-batch`.

One class holds every odd entry at once beside honest learners: links out of the folder (one to
solutions/), a learner's folder that is a link, FIFOs, a device, an unreadable folder, an
undecodable name, cells that a spreadsheet would run, and terminal escapes in names. The book is
still written, every odd entry is a `refused` row with its reason, the honest learners are
graded, and nothing printed or written carries an escape or a formula. Run as root and, by
test_hostile_unprivileged.py, as an ordinary user.
"""

from __future__ import annotations

import csv
import json
import os
import stat
from pathlib import Path

import jsonschema
import pytest

from ..cli.test_cli import LECTURE_PASS, ROOT, cli
from .test_batch import BOOK, DOCS

pytestmark = pytest.mark.slow  # grades a class through the CLI

SOLUTIONS = ROOT / "solutions" / "01_mlp"
ESC = "\x1b[2J\x1b[31m"
FORMULAS = ("=HYPERLINK(1)", "+SUM(1)", "-2+3", "@cmd", "\tTAB")
UNDECODABLE = os.fsdecode(b"caf\xe9")  # Latin-1 bytes: not UTF-8


def _write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory) -> Path:
    """Return a class folder of honest learners and every odd entry."""
    top = tmp_path_factory.mktemp("hostile class")
    subs = top / "class"
    honest = LECTURE_PASS.read_text()
    (subs / "ada").mkdir(parents=True)
    (subs / "ada.py").write_text(honest)
    _write(subs / "grace", "dlogprobs.py", (SOLUTIONS / "dlogprobs.py").read_text())
    # links: to a solution, to a whole pass outside, a learner's folder that is a link
    (subs / "mallory.py").symlink_to(LECTURE_PASS)
    (subs / "trudy").mkdir()
    (subs / "trudy" / "dlogprobs.py").symlink_to(SOLUTIONS / "dlogprobs.py")
    (subs / "oscar").symlink_to(SOLUTIONS, target_is_directory=True)
    (subs / "eve").mkdir()
    (subs / "eve" / "dprobs.py").symlink_to("/etc/hostname")
    # a FIFO at the top and in a learner's folder (reading one would wait forever)
    os.mkfifo(subs / "fifo.py")
    (subs / "peggy").mkdir()
    os.mkfifo(subs / "peggy" / "dlogprobs.py")
    if os.geteuid() == 0:  # only root may make a device node
        os.mknod(subs / "peggy" / "dprobs.py", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    # an unreadable folder (root reads it anyway) and a folder inside a learner's folder
    _write(subs / "walter", "dlogprobs.py", (SOLUTIONS / "dlogprobs.py").read_text())
    (subs / "walter").chmod(0)
    (subs / "ada" / "drafts").mkdir()
    # an undecodable folder name and file name
    _write(subs / UNDECODABLE, "dlogprobs.py", (SOLUTIONS / "dlogprobs.py").read_text())
    (subs / f"{UNDECODABLE}.py").write_text(honest)
    # names that a spreadsheet runs, names that paint a terminal
    for i, formula in enumerate(FORMULAS):
        _write(subs / formula, "dlogprobs.py", f"dlogprobs = torch.zeros_like(logprobs)  # {i}\n")
    _write(subs / f"{ESC}victor", "dlogprobs.py", "print('\\x1b[2J')\n" + honest)
    yield top
    (subs / "walter").chmod(0o700)  # so that pytest can remove it


@pytest.fixture(scope="module")
def graded(hostile_class):
    """Grade the hostile class; return the run, the CSV rows and the JSON book."""
    out = hostile_class / "book"
    out.with_suffix(".csv").symlink_to(hostile_class / "victim.csv")
    (hostile_class / "victim.csv").write_text("not yours\n")
    done = cli("grade-batch", hostile_class / "class", "--out", out, "--slots", "2")
    csv_path, json_path = out.with_suffix(".csv"), out.with_suffix(".json")
    rows = list(csv.DictReader(csv_path.open(newline="", encoding="utf-8-sig")))
    book = json.loads(json_path.read_text()) if json_path.exists() else None
    return done, rows, book


def _rows(graded) -> dict[str, dict]:
    """Return the CSV rows by learner/item, the quote a formula got removed from the learner."""
    _, rows, _ = graded
    return {f"{r['learner'].removeprefix(chr(39))}/{r['item']}": r for r in rows}


def test_the_book_is_written_whatever_the_class_holds(graded):
    done, rows, book = graded
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert rows and book is not None


def test_the_book_validates_against_the_schema(graded):
    schema = json.loads((DOCS / "gradebook.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(graded[2])


@pytest.mark.parametrize("key", ["learner", "item", "summary", "file"])
def test_the_schema_refuses_a_control_character_in_a_text(key):
    schema = json.loads((DOCS / "gradebook.schema.json").read_text())
    item = dict(BOOK["learners"][0]["items"][0], kind="exercise", item="dlogprobs")
    item[key] = "ada\x1b[2J"
    book = dict(BOOK, learners=[dict(BOOK["learners"][0], items=[item])])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(book)


def test_honest_learners_are_graded(graded):
    rows = _rows(graded)
    assert rows["ada/whole_pass:01_mlp"]["status"] == "solved"
    assert rows["grace/dlogprobs"]["status"] == "solved"


@pytest.mark.parametrize(
    "key",
    ["mallory/mallory.py", "trudy/dlogprobs.py", "oscar/oscar", "eve/dprobs.py"],
)
def test_a_link_is_refused_never_followed(graded, key):
    row = _rows(graded)[key]
    assert row["status"] == "refused" and "symbolic link" in row["summary"], row
    assert row["solved"] == "False"


def test_no_solution_reaches_the_book_through_a_link(graded):
    solved = {k for k, r in _rows(graded).items() if r["status"] == "solved"}
    assert not {k for k in solved if k.split("/")[0] in ("mallory", "trudy", "oscar", "eve")}


@pytest.mark.parametrize("key", ["fifo/fifo.py", "peggy/dlogprobs.py"])
def test_a_fifo_is_refused_without_waiting(graded, key):
    row = _rows(graded)[key]
    assert row["status"] == "refused" and "FIFO" in row["summary"], row


def test_a_device_is_refused(graded):
    if os.geteuid() != 0:
        pytest.skip("only root can make a device node")
    row = _rows(graded)["peggy/dprobs.py"]
    assert row["status"] == "refused" and "device" in row["summary"], row


def test_an_unreadable_folder_is_a_refused_row_and_loses_nothing(graded):
    rows = _rows(graded)
    if os.geteuid() == 0:  # root reads every folder: the learner is simply graded
        assert rows["walter/dlogprobs"]["status"] == "solved"
    else:
        assert rows["walter/walter"]["status"] == "refused"
        assert "Permission denied" in rows["walter/walter"]["summary"]
    assert rows["ada/whole_pass:01_mlp"]["status"] == "solved"


def test_a_folder_inside_a_learners_folder_is_refused(graded):
    row = _rows(graded)["ada/drafts"]
    assert row["status"] == "refused" and "folder inside" in row["summary"]


def test_an_undecodable_name_is_a_refused_row_shown_inert(graded):
    rows = _rows(graded)
    for key in ("caf\\udce9/caf\\udce9", "caf\\udce9/caf\\udce9.py"):
        assert rows[key]["status"] == "refused" and "not UTF-8" in rows[key]["summary"], rows
    assert not any(any("\udce9" in v for v in r.values()) for r in graded[1])


def test_no_cell_starts_a_formula(graded):
    _, rows, _ = graded
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), value
    quoted = {r["learner"] for r in rows if r["learner"].startswith("'")}
    assert quoted == {"'" + f for f in FORMULAS}


def test_no_escape_is_written_or_printed(graded):
    done, rows, book = graded
    texts = [done.stdout, done.stderr, json.dumps(book, ensure_ascii=False)]
    texts += [v for r in rows for v in r.values()]
    assert not [t for t in texts if "\x1b" in t]
    assert not [t for t in texts[2:] if "\r" in t]
    assert "\\x1b[2J\\x1b[31mvictor" in {r["learner"] for r in rows}


def test_the_wide_book_has_no_formula_and_no_escape(graded, hostile_class):
    wide = hostile_class / "book.wide.csv"
    with wide.open(newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    cells = [v for r in rows for v in r.values()]
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r"))]
    assert not [c for c in cells if "\x1b" in c or "\r" in c]
    assert {r["learner"] for r in rows if r["learner"].startswith("'")} == {
        "'" + f for f in FORMULAS
    }
    assert oct(wide.stat().st_mode & 0o777) == oct(0o600)


def test_the_book_replaces_a_link_at_its_path_and_leaves_no_draft(graded, hostile_class):
    assert (hostile_class / "victim.csv").read_text() == "not yours\n"
    assert not (hostile_class / "book.csv").is_symlink()
    assert sorted(p.name for p in hostile_class.iterdir() if p.name.startswith(".")) == []


def test_a_refusal_line_prints_a_name_inert(tmp_path):
    missing = tmp_path / f"{ESC}nowhere"
    for args in (("grade-batch", missing), ("check", missing / "answer.py")):
        done = cli(*args)
        assert done.returncode == 2, done.stderr
        assert "\x1b" not in done.stderr and "\\x1b[2J" in done.stderr, done.stderr
