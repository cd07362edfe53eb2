"""The README is a front door: short, its picture committed, and every command it shows runs.

Which README commands are run: each line of a fenced ```bash block is a command (a trailing
`# comment` is dropped). A line that starts with `.venv/bin/python -m grader` and whose verb is
in SAFE_VERBS is run from the checkout with this interpreter and must exit 0; SAFE_VERBS are the
verbs that read the checkout and write nothing (`--help`, `list`, `check` on a shipped solution,
`validate`). Every other line must be listed in NOT_RUN with the reason it is not run, so that a
new command cannot slip past this test unclassified.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PICTURE = ROOT / "docs" / "img" / "exercise.png"
MAX_LINES = 200
MAX_PICTURE_BYTES = 300_000
PYTHON = ".venv/bin/python"
GRADER = f"{PYTHON} -m grader"
SAFE_VERBS = ("--help", "list", "check", "validate")
NOT_RUN = {
    "scripts/run": "starts a server that runs until stopped",
    "scripts/test": "the whole suite, which runs this test",
    f"{GRADER} doctor": "exits 1 on a machine that lacks a sandbox layer",
    f"{GRADER} download-names": "fetches from the network",
    f"{GRADER} grade-batch": "needs a folder of submissions",
}


def fenced_bash(text: str) -> list[str]:
    """Return every command line of the ```bash blocks in text, without trailing comments."""
    blocks = re.findall(r"^```bash\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    lines = (line.split(" #", 1)[0].strip() for block in blocks for line in block.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def is_safe(command: str) -> bool:
    """Return True for a grader command whose verb reads the checkout and writes nothing."""
    if not command.startswith(GRADER + " "):
        return False
    words = shlex.split(command[len(GRADER) :])
    return bool(words) and words[0] in SAFE_VERBS


def reason_not_run(command: str) -> str | None:
    """Return why command is not run, or None if it is not listed in NOT_RUN."""
    return next((why for start, why in NOT_RUN.items() if command.startswith(start)), None)


def test_fenced_bash_finds_commands_and_drops_comments():
    text = "x\n```bash\na --help   # say\n# only a comment\n\nb c\n```\n```python\nd\n```\n"
    assert fenced_bash(text) == ["a --help", "b c"]


def test_only_reading_verbs_are_safe():
    assert is_safe(f"{GRADER} check solutions/01_mlp/dh.py --exercise dh")
    assert is_safe(f"{GRADER} --help")
    assert not is_safe(f"{GRADER} download-names")
    assert not is_safe(f"{GRADER}")
    assert not is_safe("scripts/run")
    assert reason_not_run("scripts/run --server.port 1") and not reason_not_run("rm -rf x")


def test_the_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; at most {MAX_LINES}"


def test_the_readme_shows_the_two_quick_start_commands():
    quick = README.read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert fenced_bash(quick) == ["scripts/run", "scripts/test"]
    for script in ("run", "test", "setup"):
        assert (ROOT / "scripts" / script).stat().st_mode & 0o111, f"scripts/{script} runs"


def test_the_readme_links_resolve():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)\)", text)
    assert "docs/img/exercise.png" in targets
    missing = [t for t in targets if "://" not in t and not (ROOT / t).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_the_screenshot_is_a_small_png():
    data = PICTURE.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), f"{PICTURE} is not a PNG"
    assert len(data) < MAX_PICTURE_BYTES, f"{PICTURE} is {len(data):,} bytes"


def test_every_readme_command_is_run_or_says_why_not():
    commands = fenced_bash(README.read_text(encoding="utf-8"))
    unclassified = [c for c in commands if not is_safe(c) and not reason_not_run(c)]
    assert not unclassified, f"list these in NOT_RUN (with why) or make them safe: {unclassified}"
    assert sum(map(is_safe, commands)) >= 4, "the README shows the grader's reading commands"


SAFE = [c for c in fenced_bash(README.read_text(encoding="utf-8")) if is_safe(c)]


@pytest.mark.slow
@pytest.mark.parametrize("command", SAFE, ids=[c[len(GRADER) + 1 :] for c in SAFE])
def test_the_readme_command_runs(command):
    line = shlex.quote(sys.executable) + command[len(PYTHON) :]
    done = subprocess.run(
        ["bash", "-c", line], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"{command}\nexit {done.returncode}\n{done.stdout}{done.stderr}"
    assert done.stdout.strip(), f"{command} printed nothing"
