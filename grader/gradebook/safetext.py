"""Make foreign text safe to print on a terminal or to put in a spreadsheet cell.

Text from outside (file names, learners' folder names, messages quoting them) reaches the
command line's output and the CSV gradebook. `shown` is the one neutraliser every printed line
goes through; `cell` is `shown` plus OWASP's rule against formula injection, for CSV cells,
applied wherever a spreadsheet may start a cell: at the start, and after every separator one
may split on (`,` in English, `;` in German or French Excel, a tab) or a line break, since a
reader with another separator than the writer's splits a cell there.

    >>> shown("ada\\x1b[2J\\rsolved")
    'ada\\\\x1b[2J\\\\x0dsolved'
    >>> cell("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    >>> cell("ada;=1+1")
    "ada;'=1+1"
"""

from __future__ import annotations

import re

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{BIDI}]")
FORMULA = ("=", "+", "-", "@", "\t", "\r")  # OWASP: a cell starting so is read as a formula
WIDE = "\uff1d\uff0b\uff0d\uff20"  # the full-width =, +, -, @ (read as formulas in some locales)
# A formula character at the start or after a separator or line break (spaces between).
STARTS = re.compile(f"(^|[,;\t\r\n])([ ]*)([=+\\-@\t\r{WIDE}])")


def shown(text: str) -> str:
    """Return text with every control character but newline and tab (escape sequences, carriage
    returns, bells, backspaces), every bidirectional override and every lone surrogate (an
    undecodable byte of a file name) written as a visible escape such as `\\x1b`."""
    return UNSAFE.sub(_escape, text)


def cell(text: str) -> str:
    """Return text as a CSV cell: `shown`, and a quote before every formula character (=, +, -,
    @, a tab, a carriage return, or a full-width =, +, -, @) that starts the text or follows a
    separator (`,` `;` tab) or a line break, spaces between: whichever separator a spreadsheet
    splits on, no cell it makes starts a formula."""
    text, before = shown(text), None
    while text != before:  # a quoted tab is a separator too: `\t=x` needs a second pass
        text, before = STARTS.sub(r"\1\2'\3", text), text
    return text


def _escape(match: re.Match) -> str:
    """Return the escape for one unsafe character."""
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
