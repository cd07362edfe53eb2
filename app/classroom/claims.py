"""The claims of a signed-in person's token, checked before anything keeps or shows them.

Every claim the app reads (the issuer and subject, the name, the e-mail address, the groups, the
tenant, the instructors' claim) is refused when it is not text (or a list of texts), holds a
control character (NUL among them: PostgreSQL cannot store one), or is longer than its limit.
What the app shows (name, e-mail, groups) is kept in NFKC form, so `Ａｄａ` is shown as `Ada`;
what names a person or gives a role (issuer, subject, the e-mail and claims matched against the
configuration) is compared exactly as the provider sent it, never normalised into a match.

    >>> shown({"iss": "https://id.uni.edu", "sub": "42", "name": "Ａｄａ"})["name"]
    'Ada'
    >>> shown({"iss": "https://id.uni.edu", "sub": "4\\x002"})
    Traceback (most recent call last):
    claims.Refused: ...
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
LIMITS = {"iss": 512, "sub": 255, "name": 200, "email": 254, "tid": 128}  # characters
GROUP_LIMIT, GROUPS_MOST = 256, 256  # characters of one group, groups in a list
SHOWN = ("name", "email")  # kept in NFKC form for the pages, the dashboard and the books
GROUPS = ("groups", "section")


class Refused(ValueError):
    """A claim the app will not keep: which claim, and why (for the sign-in page)."""

    def __init__(self, claim: str, why: str):
        super().__init__(f"`{claim}` {why}")
        self.claim, self.why = claim, why


def shown(claims: Mapping, also: tuple[str, ...] = ()) -> dict:
    """Return the claims with those the app reads checked (LIMITS, GROUPS and `also`, e.g. the
    instructors' claim) and those it shows in NFKC form; raise Refused for a bad one."""
    found = dict(claims)
    for name, limit in LIMITS.items():
        if name in found:
            _text(name, found[name], limit)
    for name in (*GROUPS, *also):
        value = found.get(name)
        for one in value if isinstance(value, list | tuple) else [value]:
            _text(name, one, GROUP_LIMIT, lists=True)
        if isinstance(value, list | tuple) and len(value) > GROUPS_MOST:
            raise Refused(name, f"lists more than {GROUPS_MOST} values")
    for name in SHOWN:
        if isinstance(found.get(name), str):
            found[name] = unicodedata.normalize("NFKC", found[name])
    for name in GROUPS:
        found[name] = _nfkc(found.get(name))
    return found


def _text(name: str, value: object, limit: int, lists: bool = False) -> None:
    """Refuse a value that is not text (None, a number or a bool inside a list of groups is
    left to the reader, who ignores it), holds a control character, or is too long."""
    if value is None or (lists and not isinstance(value, str)):
        return
    if not isinstance(value, str):
        raise Refused(name, "is not text")
    if CONTROL.search(value):
        raise Refused(name, "holds a control character")
    if len(value) > limit:
        raise Refused(name, f"is longer than {limit} characters")


def _nfkc(value: object) -> object:
    """Return a text, or each text of a list, in NFKC form (anything else as it is)."""
    if isinstance(value, str):
        return unicodedata.normalize("NFKC", value)
    if isinstance(value, list | tuple):
        return [_nfkc(v) for v in value]
    return value
