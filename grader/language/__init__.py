"""The exercise language: what learner code may be, declared once, checked before it runs.

    >>> from grader.language import LANGUAGE
    >>> LANGUAGE.refusal(ast.parse("dh = torch.ops.aten.tanh_backward(dh, h)")).construct
    'torch.ops'

declared.py declares the syntax, the names and (with vocabulary.toml) the attribute names;
checker.py checks a parsed tree against them, executing nothing; operations.py holds the forward
operations the vocabulary dispatches (operations.txt, written by derive.py), which the worker's
dispatch audit lets through. The lowest room: it imports no other, and no torch on import.
"""

from __future__ import annotations

from grader.lazy import lazy_names

_HOMES = {
    "ATTRIBUTES": "grader.language.declared",
    "EXTRA": "grader.language.declared",
    "LANGUAGE": "grader.language.checker",
    "Language": "grader.language.checker",
    "OPERATIONS": "grader.language.operations",
    "Refusal": "grader.language.checker",
    "widen": "grader.language.checker",
}
__all__ = sorted(_HOMES)

__getattr__ = lazy_names("grader.language", _HOMES)
