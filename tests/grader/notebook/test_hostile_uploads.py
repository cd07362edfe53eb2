"""Hostile uploads: every shape of notebook or word list is refused by name, or read, in a child.

Each case is a file a learner could upload on the shared server. A file over a cap is refused
with the message that names the cap (never "the grader failed"); a file within the caps is read
in a child process (data/bounded.py), and the process that asked (the app's) grows by little
however costly the file: a probe process reads it as the app does and reports its own peak
memory growth beside its child's. As root, the suite runs again as the ordinary user ninjatest
(tests/grader/test_hostile_unprivileged.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from data import DatasetError, read_upload
from grader import notebook
from grader.feedback import voice as feedback
from grader.notebook import UNFILLED, NotebookError

from ..fixtures import lecture_notebook as lecture

pytestmark = pytest.mark.slow  # each read starts a child process

ROOT = Path(__file__).resolve().parents[3]
NAME = "my.ipynb"
APP_BUDGET_KIB = 100 << 10  # the app's process may grow by less than 100 MiB for one upload


def code(source: str) -> dict:
    fields = {"metadata": {}, "execution_count": None, "outputs": [], "source": source}
    return {"cell_type": "code", **fields}


def shaped(cells: list, **top) -> bytes:
    """Return an nbformat 4 notebook file with these cells and top-level keys."""
    body = {"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": cells, **top}
    return json.dumps(body).encode()


def lecture_with(**answers) -> bytes:
    import nbformat

    return nbformat.writes(lecture.build(**answers)).encode()


def depth_inside(levels: int) -> bytes:
    """Return a notebook whose metadata nests `levels` arrays (within Python's recursion)."""
    nested = b"[" * levels + b"]" * levels
    return b'{"nbformat": 4, "nbformat_minor": 4, "cells": [], "metadata": {"a": ' + nested + b"}}"


REFUSED = [
    (
        "huge",
        lambda: shaped([{"cell_type": "markdown", "metadata": {}, "source": "x" * (9 << 20)}]),
        feedback.notebook_too_large(NAME, 8),
    ),
    (
        "many cells",
        lambda: shaped([code("x = 1\n")] * 5000),
        feedback.notebook_too_many_cells(NAME, 5000, 500),
    ),
    (
        "long cell",
        lambda: shaped([code("x = 1\n" * 50_000)]),
        feedback.notebook_cell_too_long(NAME, 1, 300_000, 100_000),
    ),
    (
        "long cell as lines",
        lambda: shaped([code("a = 0\n"), code(["dlogits = 1\n"] * 30_000)]),
        feedback.notebook_cell_too_long(NAME, 2, 360_000, 100_000),
    ),
    (
        "much code",
        lambda: shaped([code("x = 1\n" * 15_000)] * 12),
        feedback.notebook_too_much_code(NAME, 1_080_000, 1_000_000),
    ),
    (
        "deep nesting",
        lambda: b"[" * 100_000 + b"]" * 100_000,
        feedback.notebook_too_deep(NAME, 100_000, 64),
    ),
    (
        "deep nesting in metadata",
        lambda: depth_inside(900),
        feedback.notebook_too_deep(NAME, 902, 64),  # the notebook, its metadata, 900 arrays
    ),
    (
        "unknown nbformat version",
        lambda: b'{"nbformat": 99, "nbformat_minor": 0, "cells": []}',
        feedback.notebook_malformed(NAME, "nbformat version 99 is not one nbformat reads"),
    ),
    (
        "huge integer",
        lambda: b'{"nbformat": 4, "n": ' + b"9" * 5000 + b"}",
        "`my.ipynb` is not a Jupyter notebook: it is not JSON (Exceeds the limit (4300 digits)",
    ),
    (
        "binary",
        lambda: b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64,
        feedback.notebook_not_json(NAME, "it is not UTF-8 text"),
    ),
]


@pytest.mark.parametrize(("make", "message"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_a_notebook_over_a_cap_is_refused_naming_it(make, message):
    with pytest.raises(NotebookError) as refused:
        notebook.read(make(), NAME)
    assert str(refused.value).startswith(message)


def test_brackets_in_strings_do_not_count_as_nesting():
    deep_text = "[" * 5000 + '\\"{' * 100
    raw = lecture_with(exercise3=f"dhprebn = 0 * hprebn  # {deep_text}\n")
    parts = notebook.read(raw, NAME).parts
    assert deep_text in parts[2].code


def test_a_cell_no_parser_reads_is_read_once_in_linear_time():
    """A long line without `=` that does not parse: read by a pattern that cannot backtrack."""
    raw = lecture_with(exercise2="dlogits" + "x" * 99_000 + "(\n")
    parts = notebook.read(raw, NAME).parts
    assert parts[1].state == UNFILLED and "x" * 99_000 in parts[1].code


WORDS = [
    ("one enormous word", b"anna\nbob\n" * 6 + b"x" * 1_900_000 + b"\n", "a word of 1,900,000 characters on line 13; the limit is 100"),  # noqa: E501
    ("one enormous CSV value", b"name,x\n" + b"ann,1\n" * 20 + b"b" * 500 + b",2\n", "a word of 500 characters on row 21"),  # noqa: E501
    ("many columns", b",".join(b"c%d" % i for i in range(200_000)) + b"\n" + b"a,b\n" * 20, "has no column `name`: got columns `c0`, `c1`"),  # noqa: E501
    ("binary", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64, "looks binary"),
    ("over the upload cap", b"anna\n" * 500_000, "is too large: got 2.5 MB, expected at most 2.0 MB"),  # noqa: E501
]  # fmt: skip


@pytest.mark.parametrize(("raw", "message"), [w[1:] for w in WORDS], ids=[w[0] for w in WORDS])
def test_a_word_list_over_a_cap_is_refused_naming_it(raw, message):
    name, column = ("list.csv", "name") if b"," in raw[:64] else ("list.txt", None)
    with pytest.raises(DatasetError) as refused:
        read_upload(raw, name, column)
    assert message in refused.value.message
    assert len(refused.value.message) < 1000, "a message is a sentence, not the file"


def test_a_word_list_at_the_caps_is_previewed_in_bounded_fields():
    words = [f"{a}{b}{c}{'x' * (i % 90)}" for i, (a, b, c) in enumerate(_triples())]
    raw = "\n".join(words).encode()[:1_990_000]
    upload = read_upload(raw, "list.txt")
    shown = upload.preview
    assert shown.words == upload.text.count("\n") > 10_000
    assert len(shown.lengths) <= 30 and sum(n for _, _, n in shown.lengths) == shown.words
    assert shown.lengths[-1][1] == max(len(w) for w in upload.text.split())
    assert len(shown.first) == 5 and shown.chars == "abcdefghijklmnopqrstuvwxyz"


def _triples():
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [(a, b, c) for a in letters for b in letters for c in letters] * 4


PROBE = """
import sys, resource
from pathlib import Path
from data import DatasetError, read_upload
from grader.notebook import NotebookError, read

def peak_kib():
    return int(Path("/proc/self/status").read_text().split("VmHWM:")[1].split()[0])

kind, path = sys.argv[1:]
raw = Path(path).read_bytes()
Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from here
before = peak_kib()
try:
    read(raw, "my.ipynb") if kind == "notebook" else read_upload(raw, "list.txt")
    outcome = "read"
except (NotebookError, DatasetError) as err:
    outcome = "refused: " + str(err)
child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(peak_kib() - before, child, outcome)
"""


def _tiny_objects() -> bytes:
    """Return an 8 MiB notebook of some two million empty JSON objects in its metadata."""
    head = b'{"nbformat": 4, "nbformat_minor": 4, "cells": [], "metadata": {"a": ['
    count = ((8 << 20) - len(head) - 10) // 3
    return head + b",".join([b"{}"] * count) + b"]}}"


COSTLY = [
    ("notebook of tiny objects", "notebook", _tiny_objects),
    ("lecture with a cell at the cap", "notebook", lambda: lecture_with(exercise2="x = 1\n" * 16_000)),  # noqa: E501
    ("word list at the cap", "words", lambda: b"\n".join(b"%d" % i for i in range(300_000)).translate(bytes.maketrans(b"0123456789", b"abcdefghij"))[:1_999_000]),  # noqa: E501
]  # fmt: skip


@pytest.mark.parametrize(("kind", "make"), [c[1:] for c in COSTLY], ids=[c[0] for c in COSTLY])
def test_a_costly_upload_within_the_caps_costs_the_asking_process_little(tmp_path, kind, make):
    path = tmp_path / "upload"
    path.write_bytes(make())
    command = [sys.executable, "-c", PROBE, kind, str(path)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    grown, child, outcome = done.stdout.split(maxsplit=2)
    assert "could not be read within" not in outcome, outcome
    assert int(grown) < APP_BUDGET_KIB, f"the asking process grew by {grown} KiB ({outcome})"
    assert int(child) > int(grown), "the cost was paid in the child"
