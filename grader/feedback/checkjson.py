"""The JSON that `python -m grader check --json` prints: one versioned shape for every outcome.

Documented in docs/check-json.md, with its JSON Schema in docs/check-json.schema.json. Every key
is always present (null or empty where it does not apply); a change that could break a reader
gets a new SCHEMA version. Reference values never appear (no heatmap, no expected tensors).

    >>> payload = refusal("no exercise `nope`", Subject("exercise", "nope"))
    >>> payload["schema"], payload["status"], payload["exit_code"]
    ('backprop-ninja/check/1', 'bad_input', 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from grader.result import PASS, LearnerError, NotebookPart, NotebookResult, PassResult, Result

SCHEMA = "backprop-ninja/check/1"
EXIT_CODES = {"solved": 0, "not_solved": 1, "bad_input": 2, "grader_failed": 3, "busy": 3}


@dataclass(frozen=True)
class Subject:
    """What was asked: the kind ("exercise", "whole_pass" or "notebook"), its id or scenario,
    the file."""

    kind: str
    exercise: str | None = None
    scenario: str | None = None
    file: str | None = None
    learner: str | None = None


def status(result: Result | PassResult) -> str:
    """Return "solved", "not_solved", "grader_failed" or "busy" for a graded result."""
    return result.status


def exercise(result: Result, subject: Subject) -> dict:
    """Return the payload for one exercise's result."""
    passed = sum(c.status == PASS for c in result.checks)
    return _base(subject, status(result), result.summary()) | {
        "score": {"passed": passed, "total": len(result.checks)},
        "checks": [_check(c) for c in result.checks],
        "cmp": _cmp(result.cmp),
        "error": _error(result.error),
        "stdout": result.stdout,
        **_refused(result),
        "elapsed_seconds": round(result.elapsed, 4),
    }


def whole_pass(result: PassResult, subject: Subject, total: int) -> dict:
    """Return the payload for a whole pass of `total` gradients."""
    passed = sum(r.status == PASS for r in result.rows)
    return _base(subject, status(result), result.message) | {
        "score": {"passed": passed, "total": total},
        "gradients": [_gradient(r) for r in result.rows],
        "root_cause": result.root_cause,
        "error": _error(result.error),
        "stdout": result.stdout,
        "notes": list(result.notes),
        **_refused(result),
        **_figures(result.header),
        "elapsed_seconds": round(result.elapsed, 4),
    }


def notebook(result: NotebookResult, subject: Subject) -> dict:
    """Return the payload for a notebook: one *part* per exercise of the lecture."""
    passed = sum(p.status == "solved" for p in result.parts)
    return _base(subject, result.status, result.message) | {
        "score": {"passed": passed, "total": len(result.parts)},
        "parts": [_part(p) for p in result.parts],
        **_figures(result.header),
        "elapsed_seconds": round(result.elapsed, 4),
    }


def _part(part: NotebookPart) -> dict:
    """Return one exercise of a notebook, with its checks (2, 3) or gradients (1, 4)."""
    res = part.result
    return {
        "number": part.number,
        "title": part.title,
        "cell": part.cell,
        "status": part.status,
        "summary": part.summary,
        "checks": [_check(c) for c in getattr(res, "checks", ())],
        "gradients": [_gradient(r) for r in getattr(res, "rows", ())],
        "root_cause": getattr(res, "root_cause", None),
        "error": _error(getattr(res, "error", None)),
        "stdout": getattr(res, "stdout", ""),
        **_refused(res),
    }


def _refused(result) -> dict:
    """Return the construct outside the exercise language that refused the code, and its line
    (both null when the code was not refused so)."""
    construct = getattr(result, "refused_construct", "")
    line = getattr(result, "refused_line", None) if construct else None
    return {"refused_construct": construct or None, "refused_line": line}


def _gradient(row) -> dict:
    """Return one gradient row (of a whole pass or of Exercise 4's gradient check) as data."""
    return {"name": row.name, "status": row.status, "message": row.message, "cmp": _cmp(row.cmp)}


def _figures(header: dict) -> dict:
    """Return the `model` and `dataset` keys from a whole pass's header."""
    info = dict(header)
    model = {k: info.pop(k) for k in ("scenario", "parameters", "loss", "sizes") if k in info}
    return {"model": _model(model) if model else None, "dataset": info or None}


def refusal(message: str, subject: Subject, state: str = "bad_input") -> dict:
    """Return the payload for input refused before grading, or a grader that failed."""
    return _base(subject, state, message)


def _base(subject: Subject, state: str, summary: str) -> dict:
    """Return every key with its empty value, and the ones that always apply."""
    return {
        "schema": SCHEMA,
        "status": state,
        "exit_code": EXIT_CODES[state],
        "solved": state == "solved",
        "kind": subject.kind,
        "exercise": subject.exercise,
        "scenario": subject.scenario,
        "file": subject.file,
        "learner": subject.learner,
        "summary": summary,
        "score": {"passed": 0, "total": 0},
        "checks": [],
        "gradients": [],
        "parts": [],
        "root_cause": None,
        "cmp": None,
        "error": None,
        "stdout": "",
        "refused_construct": None,
        "refused_line": None,
        "notes": [],
        "model": None,
        "dataset": None,
        "elapsed_seconds": 0.0,
    }


def _check(check) -> dict:
    """Return one check as data."""
    return {
        "kind": check.kind,
        "title": check.title,
        "status": check.status,
        "message": check.message,
        "hint": check.hint,
        "misconception": check.misconception or None,
        "remedy": _remedy(check.remedy),
    }


def _remedy(remedy) -> dict | None:
    """Return the change a failed check's sentence proposes (checked to give autograd's answer
    before it was said) as data, or None."""
    if remedy is None:
        return None
    return {"code": remedy.code, "whole": remedy.whole}


def _cmp(cmp) -> dict | None:
    """Return the lecture's cmp line as data (a maxdiff that is not finite is null)."""
    if cmp is None:
        return None
    return {
        "name": cmp.name,
        "exact": bool(cmp.exact),
        "approx": bool(cmp.approx),
        "maxdiff": _finite(cmp.maxdiff),
    }


def _error(error: LearnerError | None) -> dict | None:
    """Return the learner's exception as data."""
    if error is None:
        return None
    return {
        "type": error.type,
        "message": error.message,
        "line": error.line,
        "traceback": error.traceback,
    }


def _model(model: dict) -> dict:
    """Return the scenario's figures under the schema's names."""
    return {
        "title": model.get("scenario", ""),
        "parameters": model.get("parameters", 0),
        "loss": _finite(model.get("loss")),
        "sizes": model.get("sizes", {}),
    }


def _finite(value) -> float | None:
    """Return value as a float, or None when it is missing, NaN or infinite (not JSON)."""
    return float(value) if value is not None and math.isfinite(value) else None
