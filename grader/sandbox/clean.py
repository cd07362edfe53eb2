"""Make learner-made text inert before it reaches a terminal, a log or a page.

Control characters (ANSI escapes, bells, backspaces, a lone carriage return), bidirectional
overrides and lone surrogates are shown as visible escapes; newlines and tabs stay.
"""

from __future__ import annotations

import re

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{BIDI}]")


def inert(text: str) -> str:
    """Return text with every unsafe character written as a visible escape, e.g. `\\x1b`.

    >>> inert("ok\\x1b[2J\\rsolved")
    'ok\\\\x1b[2J\\nsolved'
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return UNSAFE.sub(_escape, text)


def _escape(match: re.Match) -> str:
    """Return the escape for one unsafe character."""
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
