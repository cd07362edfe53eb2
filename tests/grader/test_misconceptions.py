"""The misconception ids: one list, unique, documented, and the only ids the course names."""

from __future__ import annotations

import re
from pathlib import Path

from grader.grading import hints
from grader.grading.cases import LECTURE, RANDOM
from grader.misconceptions import IDS, MISCONCEPTIONS, known

DOC = Path(__file__).resolve().parents[2] / "docs" / "misconceptions.md"


def test_ids_are_unique_stable_words():
    assert len(IDS) == len(set(IDS))
    assert all(re.fullmatch(r"[a-z][a-z_]*[a-z]", i) for i in IDS), IDS
    assert all(m.means and len(m.means) < 100 for m in MISCONCEPTIONS)


def test_every_id_is_documented_with_its_meaning():
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| (.+?) \|", DOC.read_text(), re.MULTILINE))
    assert set(rows) == set(IDS), "docs/misconceptions.md lists exactly the ids"


def test_the_listed_mistakes_and_the_practice_name_only_known_or_own_ids(catalog):
    for exercise in catalog.exercises:  # an exercise's own ids come with a name (its words)
        assert all(known(m.misconception) or m.name for m in exercise.mistakes), exercise.id
    named = {i for p in catalog.course.practice for i in p.misconceptions}
    assert named and named <= set(IDS)


def test_the_hints_are_one_declared_list_over_the_two_value_cases():
    assert len({d.looks_for for d in hints.DETECTORS}) == len(hints.DETECTORS)
    assert all(set(d.cases) <= {LECTURE, RANDOM} for d in hints.DETECTORS)
