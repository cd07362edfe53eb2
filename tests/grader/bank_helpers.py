"""The answer banks: tests/grader/bank/*.toml and tests/grader/feedback/bank.toml, each graded
once per test process, on first request, by the session's bank grader (`graded_bank` in
conftest.py), whichever test files ask: the bank tests, the feedback's claims, remedies and
trust bank (a bank graded again by a second Grader gave the same results and took 9 s at load 7).
"""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path

HERE = Path(__file__).parent
BANKS = (*sorted((HERE / "bank").glob("*.toml")), HERE / "feedback" / "bank.toml")
LECTURE_PASS = (HERE / "fixtures" / "lecture_pass.py").read_text()
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


class Kept(logging.Handler):
    """Keeps the records logged while the banks are graded (a detector that fails logs one)."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class GradedBanks:
    """Each bank's (answer, result) pairs, graded on first request, and the errors the grader
    logged meanwhile (a detector that raises says nothing and logs why)."""

    def __init__(self, grader):
        self.grader = grader
        self.errors: list[logging.LogRecord] = []
        self._graded: dict[Path, list[tuple[dict, object]]] = {}

    def __call__(self, path: Path) -> list[tuple[dict, object]]:
        """Return one bank's answers with their results."""
        path = path.resolve()
        if path not in self._graded:
            self._graded[path] = self._grade(path)
        return self._graded[path]

    def _grade(self, path: Path) -> list[tuple[dict, object]]:
        out, kept, logger = [], Kept(), logging.getLogger("grader")
        logger.addHandler(kept)
        try:
            for a in answers(path):
                if a["exercise"] == WHOLE_PASS:
                    out.append((a, self.grader.grade_pass(code_of(a))))
                else:
                    out.append((a, self.grader.grade(a["exercise"], code_of(a))))
        finally:
            logger.removeHandler(kept)
        self.errors += kept.records
        return out
