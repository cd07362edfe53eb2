"""Make foreign text safe to print on a terminal or to put in a spreadsheet cell.

Text from outside (file names, learners' folder names, messages quoting them) reaches the
command line's output and the CSV gradebook. `shown` is the one neutraliser every printed line
goes through; `cell` is `shown` plus OWASP's rule against formula injection, for CSV cells.

    >>> shown("ada\\x1b[2J\\rsolved")
    'ada\\\\x1b[2J\\\\x0dsolved'
    >>> cell("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
"""

from __future__ import annotations

import re

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{BIDI}]")
FORMULA = ("=", "+", "-", "@", "\t", "\r")  # OWASP: a cell starting so is read as a formula


def shown(text: str) -> str:
    """Return text with every control character but newline and tab (escape sequences, carriage
    returns, bells, backspaces), every bidirectional override and every lone surrogate (an
    undecodable byte of a file name) written as a visible escape such as `\\x1b`."""
    return UNSAFE.sub(_escape, text)


def cell(text: str) -> str:
    """Return text as a CSV cell: `shown`, and a leading quote where a spreadsheet would read
    a formula (it starts with =, +, -, @, a tab or a carriage return)."""
    text = shown(text)
    return "'" + text if text.startswith(FORMULA) else text


def _escape(match: re.Match) -> str:
    """Return the escape for one unsafe character."""
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
