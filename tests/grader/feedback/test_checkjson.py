"""`check --json`: real output validates against docs/check-json.schema.json for every outcome,
its exit code is the document's, and docs/check-json.md documents every key of the schema."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from grader.feedback.checkjson import EXIT_CODES, SCHEMA

from ..cli_helpers import from_root, in_process

pytestmark = pytest.mark.slow  # the CLI grades (torch, a sandbox)

ROOT = Path(__file__).resolve().parents[3]
SCHEMA_FILE = ROOT / "docs" / "check-json.schema.json"
DOC = ROOT / "docs" / "check-json.md"
LECTURE_PASS = Path(__file__).parents[1] / "fixtures" / "lecture_pass.py"


def run(*argv, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run argv from the repository root."""
    return from_root(list(argv), stdin)


def check_json(*args, stdin: str | None = None) -> tuple[dict, int]:
    """Run `check ... --json` (the CLI's main, in this process); return JSON and code."""
    done = in_process("check", *args, "--json", stdin=stdin)
    assert done.stdout.count('"schema"') == 1, done.stdout + done.stderr
    return json.loads(done.stdout), done.returncode


@pytest.fixture(scope="module")
def validator():
    """Return a validator for the documented schema (itself checked against draft 2020-12)."""
    schema = json.loads(SCHEMA_FILE.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


WRONG_PASS = LECTURE_PASS.read_text().replace("dh = dlogits @ W2.T", "dh = dlogits @ W2.T * 0.5")
OUTCOMES = [
    (
        "exercise solved",
        ["solutions/01_mlp/dlogprobs.py", "--exercise", "dlogprobs"],
        None,
    ),
    ("exercise raises", ["-", "--exercise", "dprobs"], "dprobs = 1 / 0\n"),
    ("exercise wrong shape", ["-", "--exercise", "dbnmeani"], "dbnmeani = (-dbndiff).sum(0)\n"),
    (
        "pass solved",
        ["solutions/03_attention/whole_pass.py", "--scenario", "03_attention"],
        None,
    ),
    ("pass wrong", ["-"], WRONG_PASS),
    ("pass does not parse", ["-", "--scenario", "wavenet"], "dlogits = (\n"),
    ("unknown exercise", ["-", "--exercise", "nope"], ""),
    ("unknown scenario", ["-", "--scenario", "nope"], ""),
    ("missing file", ["nope.py", "--learner", "ada"], None),
    ("unknown flag", ["nope.py", "--exercise", "dh", "--frob"], None),
]
EXPECTED = ["solved", "not_solved", "not_solved", "solved", "not_solved", "not_solved"]
EXPECTED += ["bad_input"] * 4


@pytest.mark.parametrize(
    ("args", "stdin", "status"),
    [(*case[1:], status) for case, status in zip(OUTCOMES, EXPECTED, strict=True)],
    ids=[case[0] for case in OUTCOMES],
)
def test_every_outcome_validates_and_exits_with_its_code(validator, args, stdin, status):
    payload, code = check_json(*args, stdin=stdin)
    validator.validate(payload)
    assert payload["status"] == status and code == payload["exit_code"] == EXIT_CODES[status]
    assert payload["schema"] == SCHEMA


@pytest.mark.parametrize("args", [["--exercise", "dprobs"], []], ids=["exercise", "pass"])
def test_grader_failure_validates_and_exits_3(validator, args, monkeypatch):
    """Where no sandbox can start (its interpreter does not exist), the grader itself fails.
    (tests/grader/cli/test_cli_exit.py runs this case in a `python -m grader` of its own.)"""
    monkeypatch.setattr(sys, "executable", "/nonexistent/python3")
    done = in_process("check", LECTURE_PASS, *args, "--json", lend=False)
    payload, code = json.loads(done.stdout), done.returncode
    validator.validate(payload)
    assert code == payload["exit_code"] == 3 and payload["status"] == "grader_failed"


def test_an_exercise_carries_its_checks_score_and_learner(validator):
    answer = ROOT / "solutions/01_mlp/dcounts.py"
    payload, _ = check_json(answer, "--exercise", "dcounts", "--learner", "Ada L.")
    assert payload["learner"] == "Ada L." and payload["file"] == str(answer)
    assert payload["kind"] == "exercise" and payload["scenario"] == "01_mlp"
    assert [c["kind"] for c in payload["checks"]] == [
        "runs", "rules", "form", "lecture", "random", "sizes",
    ]  # fmt: skip
    assert payload["score"] == {"passed": 6, "total": 6} and payload["cmp"]["approx"] is True


ANSWER = "dcounts_sum_inv = "


@pytest.mark.parametrize(
    ("answer", "misconception", "whole"),
    [
        ("dcounts_sum_inv = (counts * dprobs).sum(0, keepdim=True)\n", "summed_wrong_dim", True),
        ("dcounts_sum_inv = (counts * dprobs).sum(1)\n", "keepdim_lost", False),
    ],
    ids=["rewritten", "a line after"],
)
def test_a_failed_check_carries_its_misconception_and_a_remedy_that_solves(
    validator, answer, misconception, whole
):
    """The remedy the sentence proposes is data too, and it does what it says: the answer with
    it (rewritten, or followed by its line) is solved."""
    payload, code = check_json("-", "--exercise", "dcounts_sum_inv", stdin=answer)
    validator.validate(payload)
    (failed,) = [c for c in payload["checks"] if c["status"] == "fail"]
    assert code == 1 and failed["misconception"] == misconception
    assert failed["remedy"]["whole"] is whole and failed["remedy"]["code"].startswith(ANSWER)
    fixed = failed["remedy"]["code"] + "\n" if whole else answer + failed["remedy"]["code"] + "\n"
    again, code = check_json("-", "--exercise", "dcounts_sum_inv", stdin=fixed)
    assert (again["status"], code) == ("solved", 0), again["summary"]
    assert all(c["misconception"] is None and c["remedy"] is None for c in again["checks"])


def test_a_whole_pass_carries_its_rows_root_cause_and_figures():
    payload, code = check_json("-", stdin=WRONG_PASS)
    assert code == 1 and payload["root_cause"] == "dh"
    rows = {g["name"]: g["status"] for g in payload["gradients"]}
    names = list(rows)
    assert len(names) == 26 and names[:2] == ["dlogprobs", "dprobs"]
    assert {rows[n] for n in names[: names.index("dh")]} == {"pass"} and rows["dh"] == "fail"
    passed = list(rows.values()).count("pass")
    assert payload["score"] == {"passed": passed, "total": 26} and passed < 26
    assert payload["model"]["parameters"] == 4137 and payload["dataset"]["name"] == "default"
    assert "heatmap" not in json.dumps(payload)


def test_refused_input_says_why_in_the_summary():
    done = run(sys.executable, "-m", "grader", "check", "-", "--exercise", "nope", "--json")
    payload = json.loads(done.stdout)
    assert done.stderr == f"error: {payload['summary']}\n"
    assert payload["exercise"] == "nope" and payload["score"] == {"passed": 0, "total": 0}


def test_the_schema_refuses_what_the_doc_forbids(validator):
    payload, _ = check_json("-", "--exercise", "nope", stdin="")
    for key, value in [("exit_code", 0), ("solved", True), ("heatmap", []), ("schema", "v2")]:
        assert not validator.is_valid(payload | {key: value}), key
    wrong_kind = payload | {"kind": "whole_pass", "checks": [{"kind": "runs"}]}
    assert not validator.is_valid(wrong_kind)


def _keys(node) -> set[str]:
    """Return every property name the schema defines, at any depth."""
    if isinstance(node, list):
        return set().union(*map(_keys, node)) if node else set()
    if not isinstance(node, dict):
        return set()
    own = set(node.get("properties", {})) if isinstance(node.get("properties"), dict) else set()
    return own | set().union(*(_keys(v) for v in node.values()))


def test_the_doc_documents_every_key_and_status():
    schema = json.loads(SCHEMA_FILE.read_text())
    doc = DOC.read_text()
    undocumented = {key for key in _keys(schema) if f"`{key}`" not in doc}
    assert not undocumented, f"docs/check-json.md does not describe {sorted(undocumented)}"
    for status, code in EXIT_CODES.items():
        assert re.search(rf"\| `{status}` \| {code} \|", doc), status
    assert schema["properties"]["schema"]["const"] == SCHEMA and f"`{SCHEMA}`" in doc
    assert "(check-json.schema.json)" in doc


def test_the_command_line_doc_links_the_json_doc_from_its_check_section():
    doc = (ROOT / "docs" / "cli.md").read_text()
    section = doc.split("## `check`", 1)[1].split("\n## ", 1)[0]
    assert "(check-json.md)" in section
