"""Issue 24, item 7: each step exercise of the lecture links to its own moment of the video, and
the moments follow the lecture's order (it goes backward through the forward pass)."""

from __future__ import annotations

from itertools import combinations

from grader.course.lecture import CHAPTERS, parse_lecture

EXERCISE_2 = next(start for start, title in CHAPTERS if title.startswith("exercise 2"))


def _steps(mlp, catalog) -> list:
    """Return the lecture's step exercises: one gradient through its consumers' lines."""
    return [
        e
        for e in catalog.exercises
        if e.scenario.slug == mlp.slug and e.given == mlp.consumers(e.target)
    ]


def _reached(mlp, exercise) -> int:
    """Return where walking backward completes the exercise's gradient: at its first consumer's
    line (a tensor with two consumers is finished at the earlier one)."""
    lines = [s.target for s in mlp.forward]
    return min(lines.index(c) for c in mlp.consumers(exercise.target))


def test_every_step_exercise_has_a_moment_of_its_own_in_exercise_1(mlp, catalog):
    steps = _steps(mlp, catalog)
    assert {e.target for e in steps} == set(mlp.whole_pass), "one per gradient of the pass"
    moments = [e.lecture.seconds for e in steps]
    assert len(set(moments)) == len(moments), sorted(moments)
    assert all(mlp.lecture.seconds <= m < EXERCISE_2 for m in moments), moments


def test_the_moments_follow_the_lectures_order(mlp, catalog):
    steps = _steps(mlp, catalog)
    for a, b in combinations(steps, 2):
        said = (a.id, a.lecture.time, b.id, b.lecture.time)
        if _reached(mlp, a) > _reached(mlp, b):  # a's line comes later: taught earlier
            assert a.lecture.seconds < b.lecture.seconds, said
        elif _reached(mlp, a) < _reached(mlp, b):
            assert a.lecture.seconds > b.lecture.seconds, said


def test_an_estimated_moment_says_about_and_a_chapter_start_its_title(catalog):
    assert catalog.get("dcounts_sum_inv").lecture.label == "about 0:22:01"
    assert catalog.get("dlogprobs").lecture.label == (
        "0:13:01, exercise 1: backprop through the whole graph"
    )
    fused = catalog.get("dlogits_fused").lecture
    assert fused.label == "1:26:31, exercise 2: cross-entropy in one go"
    assert parse_lecture("1:05:17", "x.toml").estimated is False
    assert parse_lecture("1:05:18", "x.toml").estimated is True
