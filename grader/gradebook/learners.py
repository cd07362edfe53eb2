"""A learner's key in a gradebook, and the learners whose names only look different.

A learner's key is their name (a folder's, a roster's line, the app's stable id) in NFKC form
with every default-ignorable code point removed, so `ada`, `ada` with a zero-width space, and
NFC and NFD `zoé` are one learner. Names that still differ but look the same (Cyrillic `аda`
beside Latin `ada`, `Ivy` beside `lvy`) have one Unicode TR39 skeleton (UTS #39, "confusable
detection"): they are flagged "possibly the same learner", never merged. Skeletons come from
PyPI's `disarm` (`skeleton_key`: TR39's skeleton of Unicode's confusables data, lower case),
the one maintained package that computes them (PyICU needs a build of ICU; `confusables` and
`confusable_homoglyphs` keep no skeleton mapping).

    >>> key("ada\\u200b") == key("ada")
    True
    >>> lookalikes({"ada": "ada", "\\u0430da": "\\u0430da", "bob": "bob"})["ada"]
    ('аda',)
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Mapping

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): invisible in any text.
# Python's unicodedata does not expose the property; the ranges have been stable since 2014.
IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)


def key(name: str) -> str:
    """Return the learner key of a name: NFKC, default-ignorables removed (the name itself if
    nothing is left)."""
    found = IGNORABLE.sub("", unicodedata.normalize("NFKC", name))
    return found or name


def skeleton(name: str) -> str:
    """Return the TR39 skeleton of a name (lower case): equal for look-alikes."""
    from disarm import skeleton_key  # loaded when a book is written, not with `import grader`

    return skeleton_key(key(name))


def lookalikes(names: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """Return, for each learner key of `names` (key -> the name shown), the other keys whose
    names share its skeleton, sorted; a learner with none is left out."""
    groups: dict[str, list[str]] = defaultdict(list)
    for learner, shown in names.items():
        groups[skeleton(shown)].append(learner)
    found = {}
    for members in groups.values():
        for learner in members:
            others = tuple(sorted(m for m in members if m != learner))
            if others:
                found[learner] = others
    return found
