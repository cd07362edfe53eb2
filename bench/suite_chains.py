"""Print each test process's chain of a two-process run of the suite: what it ran, in minutes.

    scripts/test --durations=0 -v --junitxml=run.xml > run.out
    python bench/suite_chains.py run.out run.xml

The `-v` output says which process (`[gw0]`, `[gw1]`) ran each test; the JUnit XML says how
long each took (setup, call and teardown). A process's span minus its tests' sum is its time
waiting at the lock (tests/conftest.py) and idle at the end: the run's wall time is set by the
process whose chain is longest.
"""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parents[1]
RESULT = re.compile(r"^\[(gw\d+)\] \[\s*\d+%\] [A-Z]+ (\S+?)::")
WALL = re.compile(r"=+ .* in ([\d.]+)s")


def group_of(path: str) -> str:
    """Return the group a test file's tests are scheduled in (tests/conftest.py, by path)."""
    if path.startswith("tests/e2e/"):
        return "browser tests"
    if path in ("tests/deploy/test_compose.py", "tests/deploy/test_image.py"):
        return "container tests"
    if path.endswith("_unprivileged.py"):
        return "the ordinary user's re-run"
    if holds_a_host_wide_test(ROOT / path):
        return "host-wide files"
    return "other files"


def holds_a_host_wide_test(path: Path) -> bool:
    """Return whether a test file marks a test `host_wide` (tests/conftest.py groups its file)."""
    return path.is_file() and "@pytest.mark.host_wide" in path.read_text(errors="replace")


def seconds_by_file(junit: str) -> dict[str, float]:
    """Return each test file's summed test time from a JUnit XML report."""
    seconds: dict[str, float] = collections.Counter()
    for case in ElementTree.fromstring(junit).iter("testcase"):
        seconds[case.get("classname", "").replace(".", "/") + ".py"] += float(case.get("time", 0))
    return seconds


def workers_by_file(output: str) -> dict[str, str]:
    """Return the process that ran each test file, from `-v` output (the last one named)."""
    return {m[2]: m[1] for m in map(RESULT.match, output.splitlines()) if m}


def chains(output: str, junit: str) -> dict[str, dict[str, float]]:
    """Return, for each process, the minutes its tests took by group."""
    found: dict[str, dict[str, float]] = collections.defaultdict(collections.Counter)
    workers = workers_by_file(output)
    for path, seconds in seconds_by_file(junit).items():
        found[workers.get(path, "unknown")][group_of(path)] += seconds / 60
    return found


def report(output: str, junit: str) -> str:
    """Return the table: process, group, minutes; each process's sum and what it waited."""
    walls = WALL.findall(output)
    wall = float(walls[-1]) / 60 if walls else None
    lines = ["| process | group | minutes |", "| --- | --- | --- |"]
    for worker, groups in sorted(chains(output, junit).items()):
        for group, minutes in sorted(groups.items(), key=lambda g: -g[1]):
            lines.append(f"| {worker} | {group} | {minutes:.2f} |")
        busy = sum(groups.values())
        rest = f"; waiting or idle {wall - busy:.2f} of the run's {wall:.2f}" if wall else ""
        lines.append(f"| {worker} | **its tests in all**{rest} | **{busy:.2f}** |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="the run's -v output")
    parser.add_argument("junit", type=Path, help="the run's --junitxml report")
    args = parser.parse_args()
    print(report(args.output.read_text(errors="replace"), args.junit.read_text()))


if __name__ == "__main__":
    main()
