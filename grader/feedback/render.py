"""Plain-text rendering of results for the command line."""

from __future__ import annotations

from grader.result import INCONCLUSIVE, PASS, SKIPPED, NotebookResult, PassResult, Result

MARKS = {PASS: "✓", SKIPPED: "·", INCONCLUSIVE: "~"}


def result(res: Result) -> str:
    """Render one exercise's result: the checks, the cmp line and any exception."""
    lines = [f"{res.answer}: {'solved' if res.solved else 'not yet'}"]
    for check in res.checks:
        mark = MARKS.get(check.status, "✗")
        lines.append(f"  {mark} {check.title}: {check.message}")
        if check.hint:
            lines.append(f"      {check.hint}")
    if res.cmp:
        lines.append("  " + cmp_line(res.cmp))
    if res.error and res.error.traceback:
        lines.append("  " + res.error.traceback.rstrip().replace("\n", "\n  "))
    return "\n".join(lines)


def cmp_line(cmp) -> str:
    """Render the lecture's cmp line."""
    return (
        f"{cmp.name:15s} | exact: {str(cmp.exact):5s} | approximate: {str(cmp.approx):5s}"
        f" | maxdiff: {cmp.maxdiff:.1e}"
    )


def header(info: dict) -> list[str]:
    """Render the dataset and model figures."""
    lines = []
    if "words" in info:
        lines.append(
            f"dataset {info['name']}: {info['words']:,} words, vocabulary "
            f"{info['vocab_size']}, examples train {info['train']:,} / dev "
            f"{info['dev']:,} / test {info['test']:,}"
        )
    lines.append(
        f"{info['scenario']}: {info['parameters']:,} parameters, batch loss {info['loss']:.4f}"
    )
    return lines


def whole_pass(res: PassResult) -> str:
    """Render a whole pass: the header, one cmp row per gradient, the root cause."""
    return "\n".join(header(res.header) + _rows(res))


def _rows(res) -> list[str]:
    """Render one cmp row per gradient (a whole pass or a gradient check), then the verdict."""
    lines = []
    for row in res.rows:
        mark = MARKS.get(row.status, "✗")
        body = cmp_line(row.cmp) if row.cmp else f"{row.name:15s} | {row.message}"
        extra = "" if row.status == PASS or not row.cmp else f"  {row.message}"
        lines.append(f"{mark} {body}{extra}")
    if res.error and res.error.traceback:
        lines.append(res.error.traceback.rstrip())
    lines.append(res.message)
    return lines


NOTEBOOK_STATES = {
    "solved": "solved",
    "not_solved": "not yet",
    "unfilled": "not written yet",
    "missing": "no cell found",
    "grader_failed": "the grader failed",
    "busy": "not graded, the grader is busy",
}


def notebook(res: NotebookResult) -> str:
    """Render a notebook: the header, then each exercise with its cell and its own report."""
    lines = [f"notebook {res.name}", *header(res.header)]
    for part in res.parts:
        cell = f", cell {part.cell}" if part.cell else ""
        lines += ["", f"{part.title}{cell}: {NOTEBOOK_STATES[part.status]}"]
        body = _part(part)
        lines += ["  " + line if line else line for line in body.splitlines()]
    return "\n".join([*lines, "", res.message])


def _part(part) -> str:
    """Render one exercise of a notebook with the renderer of its kind of result."""
    if part.result is None:
        return part.summary
    if isinstance(part.result, Result):
        return result(part.result)
    return "\n".join(_rows(part.result))
