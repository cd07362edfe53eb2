"""An exercise's listed mistakes (`[[mistakes]]`): each carries a misconception id of its own, so
that two precisely named mistakes never count as one on the instructor's dashboard.

The id, in one rule:

- `misconception = "local_only"`: one of the shared ids of docs/misconceptions.md (Progress then
  suggests the course's practice for it), or an id of the exercise's own (lower-case words joined
  by `_`), which needs a `name`;
- else the id is derived from the mistake's `name` ("divides where it multiplies" gives
  `divides_where_it_multiplies`), which must not be a shared id;
- else, a mistake with neither, it is `listed_` and eight hex digits of its code's hash (stable
  while its code is; give it a `name` for an id that reads).

Its words, as the dashboard says them: its `name`, else the shared id's meaning, else its message
without the "Hint: " head.

    >>> listed = {"code": "dp = p", "message": "Hint: divide.", "name": "Multiplies by p"}
    >>> read_mistakes([listed], "01_dp.toml")[0].misconception
    'multiplies_by_p'
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from grader.course.schema import check_keys, did_you_mean, require
from grader.misconceptions import IDS, LISTED_MISTAKE, MISCONCEPTIONS

MISTAKE_KEYS = {"code": str, "message": str, "misconception": str, "name": str}
OWN_ID = re.compile(r"[a-z][a-z0-9_]*[a-z0-9]")
LONGEST = 60  # characters of an id, and of a name
MEANS = {m.id: m.means for m in MISCONCEPTIONS}


@dataclass(frozen=True)
class Mistake:
    """A wrong answer an instructor expects, recognised by its output; its misconception id (a
    shared one or its own) and its name in words."""

    code: str
    message: str
    misconception: str = LISTED_MISTAKE
    name: str = ""

    @property
    def words(self) -> str:
        """Return the mistake in words: its name, the shared id's meaning, or its message."""
        return self.name or MEANS.get(self.misconception) or self.message.removeprefix("Hint: ")


def read_mistakes(raw: list, where: str) -> list[Mistake]:
    """Read the `[[mistakes]]` tables, each with its id (the rule above)."""
    mistakes = []
    for i, item in enumerate(raw, start=1):
        at = f"{where}: [[mistakes]] {i}"  # counted from 1, as an author counts the blocks
        check_keys(item, MISTAKE_KEYS, ("code", "message"), at)
        code, name = item["code"].strip() + "\n", " ".join(item.get("name", "").split())
        require(len(name) <= LONGEST, f"{at}: name", f"must be at most {LONGEST} characters")
        named = _declared(item, name, at) if "misconception" in item else _derived(name, code, at)
        mistakes.append(Mistake(code, item["message"].strip(), named, name))
    return mistakes


def _declared(item: dict, name: str, at: str) -> str:
    """Return a declared id: a shared one, or the exercise's own (which needs a name)."""
    named = item["misconception"]
    if named in IDS:
        return named
    own = OWN_ID.fullmatch(named) is not None and len(named) <= LONGEST
    require(
        own,
        f"{at}: misconception",
        f"must be one of the shared ids ({', '.join(IDS)}) or an id of the exercise's own: "
        f"lower-case words joined by `_`, at most {LONGEST} characters",
    )
    close = did_you_mean(named, IDS)  # a shared id misspelt, more likely than a new one
    require(bool(name), f"{at}: name", f"is required with an id of the exercise's own{close}")
    return named


def _derived(name: str, code: str, at: str) -> str:
    """Return the id derived from the name (never a shared one), or from the code's hash."""
    if not name:
        return "listed_" + hashlib.sha256(code.encode()).hexdigest()[:8]
    derived = "_".join(re.findall(r"[a-z0-9]+", name.lower()))[:LONGEST].strip("_")
    require(bool(derived) and derived[0].isalpha(), f"{at}: name", "must start with a letter")
    require(
        derived not in IDS,
        f"{at}: name",
        f'gives the shared id `{derived}`: write `misconception = "{derived}"` instead',
    )
    return derived


def words(mistakes: Iterable[Mistake], misconception: str) -> str:
    """Return a misconception id in words: the first listed mistake's with that id, else the
    shared id's meaning, else "" (an id no longer listed: the dashboard shows the id)."""
    for mistake in mistakes:
        if mistake.misconception == misconception:
            return mistake.words
    return MEANS.get(misconception, "")
