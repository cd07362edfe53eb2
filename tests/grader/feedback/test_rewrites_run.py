"""A remedy that changes the learner's code is checked by running the code so rewritten in the
sandbox, as the learner's code runs: one answer of each kind whose sentence needs such a run
(a bracket, `num_classes`, `@` for `*`, `*` and a sum for `@`) gets its remedy, and one whose
rewrites all fail gets the weaker sentence. tests/grader/feedback/test_unprivileged.py runs
this file again as an ordinary user."""

from __future__ import annotations

import pytest

from grader import Grader


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog)


@pytest.mark.parametrize(
    ("exercise", "code", "misconception", "remedy"),
    [
        ("dhpreact", "dhpreact = 1 - h**2 * dh", "precedence", "dhpreact = (1 - h ** 2) * dh"),
        ("dlogits_fused", "dlogits = (F.softmax(logits, 1) - F.one_hot(Yb)) / n", "one_hot_width",
         "num_classes=vocab_size"),
        ("dh", "dh = dlogits * W2.T", "broadcast_clash", "dh = dlogits @ W2.T"),
        ("dcounts_sum_inv", "dcounts_sum_inv = counts @ dprobs.T", "matmul_for_sum",
         "(counts * dprobs).sum(1, keepdim=True)"),
    ],
)  # fmt: skip
def test_a_rewrite_run_in_the_sandbox_is_the_remedy(grader, exercise, code, misconception, remedy):
    failed = grader.grade(exercise, code).failed
    assert failed.misconception == misconception, failed.message
    assert failed.remedy is not None and failed.remedy.whole and remedy in failed.remedy.code
    assert grader.grade(exercise, failed.remedy.code).solved, "the remedy is autograd's answer"


def test_without_a_rewrite_that_fits_the_sentence_proposes_nothing(grader):
    failed = grader.grade("dh", "dh = dlogits @ W1").failed
    assert failed.misconception == "matmul_shapes" and failed.remedy is None
    assert failed.hint == "" and failed.message.endswith("must match.")
