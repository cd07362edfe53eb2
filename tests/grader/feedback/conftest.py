"""The feedback's banks graded once per test run: every answer of tests/grader/bank/*.toml and of
this folder's bank.toml, with the grader that graded them (its sandbox runs the learner code)."""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path

import pytest

from grader import Grader

HERE = Path(__file__).parent
BANKS = (*sorted((HERE.parent / "bank").glob("*.toml")), HERE / "bank.toml")
LECTURE_PASS = (HERE.parent / "fixtures" / "lecture_pass.py").read_text()
WHOLE_PASS = "whole_pass"


def answers(path: Path) -> list[dict]:
    """Return a bank's answers, each with its bank's name and its id."""
    found = tomllib.loads(path.read_text())["answer"]
    return [a | {"bank": path.name, "id": f"{a['exercise']}: {a['why']}"} for a in found]


def code_of(answer: dict) -> str:
    """Return an answer's code; a whole pass is the lecture's cell with its replacements."""
    if answer["exercise"] != WHOLE_PASS:
        return answer["code"]
    code = LECTURE_PASS
    for old, new in answer["replace"]:
        assert old in code, f"{answer['id']}: {old!r} is not in the lecture's cell"
        code = code.replace(old, new)
    return code


@pytest.fixture(scope="session")
def bank_grader(default_data, catalog):
    return Grader(default_data, catalog)


class Kept(logging.Handler):
    """Keeps the records logged while the banks are graded (a detector that fails logs one)."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(scope="session")
def banks(bank_grader):
    """Return (answer, result) for every answer of every bank, graded once, and the errors the
    grader logged meanwhile (a detector that raises says nothing and logs why)."""
    out, kept, logger = [], Kept(), logging.getLogger("grader")
    logger.addHandler(kept)
    try:
        for path in BANKS:
            for a in answers(path):
                if a["exercise"] == WHOLE_PASS:
                    out.append((a, bank_grader.grade_pass(code_of(a))))
                else:
                    out.append((a, bank_grader.grade(a["exercise"], code_of(a))))
    finally:
        logger.removeHandler(kept)
    return out, kept.records


@pytest.fixture(scope="session")
def graded_banks(banks):
    return banks[0]


@pytest.fixture(scope="session")
def grading_errors(banks):
    return banks[1]
