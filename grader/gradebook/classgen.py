"""Generate a class of submissions for grade-batch's tests and benchmark (trusted text only).

Each learner gets a whole pass made of the shipped solutions, some with one line broken the way
learners break it, and some get a folder of single answers instead.
"""

from __future__ import annotations

import random
from pathlib import Path

from grader.course import Catalog

BREAKS = (  # (text in a solution, what a learner writes instead)
    ("-1.0 / n", "-1.0 / 32"),
    ("(counts * dprobs).sum(1, keepdim=True)", "(counts * dprobs).sum(1)"),
    ("dlogits @ W2.T", "dlogits @ W2"),
    ("(1.0 - h**2) * dh", "(1.0 - h) * dh"),
)


def whole_pass(catalog: Catalog, slug: str = "01_mlp") -> str:
    """Return the scenario's whole pass made of the step solutions, in backward order."""
    scenario = catalog.scenario(slug)
    steps = {
        e.target: e
        for e in reversed(catalog.exercises)
        if e.scenario.slug == slug and e.given == scenario.consumers(e.target)
    }
    return "\n".join(steps[t].solution() for t in scenario.whole_pass)


def write_class(folder: Path, catalog: Catalog, learners: int, seed: int = 0) -> dict[str, bool]:
    """Write `learners` submissions under folder; return each item's expected verdict."""
    rng = random.Random(seed)
    right = whole_pass(catalog)
    folder.mkdir(parents=True, exist_ok=True)
    expected: dict[str, bool] = {}
    for i in range(learners):
        name = f"learner{i:03d}"
        if i % 4 == 3:  # a folder of single answers, one of them wrong
            own = folder / name
            own.mkdir(parents=True)
            for exercise_id in ("dlogprobs", "dprobs", "dh"):
                code = catalog.get(exercise_id).solution()
                if exercise_id == "dh":
                    code = code.replace("W2.T", "W2")
                (own / f"{exercise_id}.py").write_text(code)
                expected[f"{name}/{exercise_id}"] = exercise_id != "dh"
            continue
        broken = rng.random() < 0.5
        old, new = rng.choice(BREAKS)
        (folder / f"{name}.py").write_text(right.replace(old, new) if broken else right)
        expected[f"{name}/whole_pass:01_mlp"] = not broken
    return expected
