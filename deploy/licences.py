"""The licences of the Python packages the image bundles: `deploy/licences.py [--write NOTICE]`.

Reads requirements.lock (the exact packages the image installs) and each package's own metadata
as installed in this Python (a licence expression, else its License field, else its licence
classifiers, else the licence file it ships), and prints one line per package; `--write` puts
the lines between NOTICE's markers, so NOTICE follows the lock (tests/deploy/test_notice.py).
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
BEGIN, END = "<!-- packages: begin -->", "<!-- packages: end -->"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")
MIT_WORDS = "Permission is hereby granted, free of charge"


def pins(lock: Path = LOCK) -> list[tuple[str, str]]:
    """Return (name, version) for every package the lock pins, in the lock's order."""
    found = (PIN.match(line) for line in lock.read_text().splitlines())
    return [(m.group(1), m.group(2).rstrip(" \\")) for m in found if m]


def licence(name: str) -> str:
    """Return the licence a package declares, in a few words."""
    meta = metadata.metadata(name)
    if meta.get("License-Expression"):
        return meta["License-Expression"]
    short = (meta.get("License") or "").strip()
    if short and "\n" not in short and len(short) <= 40:
        return short
    kinds = [c.split(" :: ")[-1] for c in meta.get_all("Classifier") or [] if "License ::" in c]
    if kinds:
        return ", ".join(kinds)
    return _from_file(name)


def _from_file(name: str) -> str:
    """Return the licence named by the package's own licence file (MIT is recognised)."""
    own = [f for f in metadata.files(name) or [] if ".dist-info" in str(f.parent)]
    for file in own:
        if "licen" in file.name.lower() or "copying" in file.name.lower():
            text = file.read_text() or ""
            return "MIT" if MIT_WORDS in text else f"see its {file.name}"
    return "not declared"


def lines(lock: Path = LOCK) -> list[str]:
    """Return NOTICE's package lines: `- name version: licence`."""
    return [f"- {name} {version}: {licence(name)}" for name, version in pins(lock)]


def write(notice: Path, found: list[str]) -> None:
    """Replace the lines between NOTICE's markers with found."""
    text = notice.read_text()
    head, _, rest = text.partition(BEGIN + "\n")
    _, _, tail = rest.partition(END)
    notice.write_text(head + BEGIN + "\n" + "\n".join(found) + "\n" + END + tail)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deploy/licences.py", description=__doc__.split("\n")[0])
    parser.add_argument("--write", type=Path, help="the NOTICE file to update")
    args = parser.parse_args(argv)
    found = lines()
    if args.write:
        write(args.write, found)
    else:
        print("\n".join(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
