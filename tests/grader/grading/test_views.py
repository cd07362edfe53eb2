"""What a page shows before any answer: the forward lines and the tensors in scope."""

from __future__ import annotations

import pytest

from grader import Grader


@pytest.fixture(scope="module")
def grader(default_data, catalog):
    return Grader(default_data, catalog)


def test_dcounts_shows_its_consumers_and_marks_their_gradients_given(grader):
    view = grader.describe("dcounts")
    assert view.answer == "dcounts" and view.forward_lines == (
        "counts_sum = counts.sum(1, keepdims=True)  # (n, 1)",
        "probs = counts * counts_sum_inv  # (n, vocab_size)",
    )
    roles = {(t.name, t.role): (t.shape, t.symbolic) for t in view.tensors}
    assert roles[("dprobs", "given")] == ((32, 27), "(n, vocab_size)")
    assert roles[("dcounts_sum", "given")] == ((32, 1), "(n, 1)")
    assert roles[("counts", "forward")] == ((32, 27), "(n, vocab_size)")
    assert roles[("counts_sum_inv", "forward")] == ((32, 1), "(n, 1)")
    assert roles[("dcounts", "answer")] == ((32, 27), "(n, vocab_size)")
    assert [t.role for t in view.tensors].count("given") == 2


def test_the_fused_cross_entropy_spans_logits_to_the_loss(grader):
    view = grader.describe("dlogits_fused")
    first = "logit_maxes = logits.max(1, keepdim=True).values  # (n, 1) subtracted below only"
    assert view.forward_lines[0].startswith(first), "the shape comment, then the lecture's reason"
    assert view.forward_lines[-1] == "loss = -logprobs[range(n), Yb].mean()  # ()"
    assert [(t.name, t.role, t.shape) for t in view.tensors] == [
        ("logits", "forward", (32, 27)),
        ("Yb", "forward", (32,)),
        ("loss", "forward", ()),
        ("dloss", "given", ()),
        ("dlogits", "answer", (32, 27)),
    ]
