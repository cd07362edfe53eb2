"""A prompt that shows the forward pass must show the scenario's own lines: each line of a
prompt's code blocks that assigns a tensor of the scenario is compared with the scenario's
programs (as Python, spacing aside), and its shape comment with the line's own.

    >>> prompt_findings(catalog.get("dbnvar"))
    [('.../17_dbnvar.toml: prompt', 'shows `bnvar = 1/n*...`, but the scenario computes ...')]
"""

from __future__ import annotations

import ast
import re
import tomllib

FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1", re.MULTILINE | re.DOTALL)
SHAPE = re.compile(r"#\s*(\([^)]*\))")


def prompt_findings(exercise) -> list[tuple[str, str]]:
    """Return (where, problem) for each prompt line that assigns a scenario tensor otherwise
    than the scenario does, or gives it another shape comment."""
    lines = _scenario_lines(exercise.scenario.path)
    where = f"{exercise.path}: prompt"
    found = []
    for text in _prompt_lines(exercise.prompt):
        problem = _differs(text, lines)
        if problem:
            found.append((where, problem))
    return found


def _scenario_lines(path) -> dict[str, list[tuple[str, str, str]]]:
    """Return, by each name assigned, the scenario's lines that assign it: (the statement as
    Python's tree, its text, its shape comment)."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    found: dict[str, list[tuple[str, str, str]]] = {}
    for table in ("setup", "forward"):
        code = raw.get(table, {}).get("code", "")
        for text in code.splitlines():
            statement = _statement(text)
            for name in _targets(statement):
                found.setdefault(name, []).append((ast.dump(statement), text.strip(), _shape(text)))
    return found


def _prompt_lines(prompt: str) -> list[str]:
    """Return every line of the prompt's fenced code blocks."""
    return [line for block in FENCE.finditer(prompt) for line in block.group(2).splitlines()]


def _differs(text: str, lines: dict) -> str:
    """Return what is wrong with one prompt line ("" when it is a scenario line, or not one
    that assigns a scenario tensor)."""
    statement = _statement(text)
    names = [n for n in _targets(statement) if n in lines]
    if not names:
        return ""
    same = [line for line in lines[names[0]] if line[0] == ast.dump(statement)]
    if not same:
        theirs = "; ".join(f"`{line[1].split('#')[0].strip()}`" for line in lines[names[0]])
        return f"shows `{text.split('#')[0].strip()}`, but the scenario computes {theirs}"
    shape = _shape(text)
    if shape and same[0][2] and _spaced(shape) != _spaced(same[0][2]):
        return f"shows `{names[0]}` as {shape}, but the scenario's shape comment is {same[0][2]}"
    return ""


def _statement(text: str) -> ast.stmt | None:
    """Return one line as a simple assignment (None if it is not one, or not Python)."""
    try:
        body = ast.parse(text.strip()).body
    except SyntaxError:
        return None
    simple = len(body) == 1 and isinstance(body[0], ast.Assign | ast.AugAssign)
    return body[0] if simple else None


def _targets(statement: ast.stmt | None) -> list[str]:
    """Return the names a statement assigns (`a, b = ...` assigns two)."""
    if statement is None:
        return []
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _shape(text: str) -> str:
    """Return a line's shape comment, `(n, n_hidden)`, or ""."""
    match = SHAPE.search(text)
    return match.group(1) if match else ""


def _spaced(shape: str) -> str:
    """Return a shape comment without its spaces."""
    return re.sub(r"\s+", "", shape)
